import Foundation
import HouseCore
import HouseTesting
import Testing

/// `coordination:`: which nodes may coordinate the house, and the lease; the mistakes config check names.
@Suite struct CoordinationConfigTests {
    static let base = try! String(contentsOfFile: HouseFixtures.repositoryRoot + "/config/house.yaml", encoding: .utf8)

    func load(_ section: String) -> Result<HouseConfiguration, ConfigurationError> {
        do { return .success(try ConfigurationLoader().load(yaml: Self.base + "\n" + section + "\n", file: "house.yaml", boards: HouseFixtures.boards())) }
        catch { return .failure(error) }
    }

    func diagnostics(_ section: String) -> [ConfigDiagnostic] {
        guard case .failure(let error) = load(section) else { return [] }
        return error.diagnostics
    }

    @Test func withoutTheSectionTheFirstNodeCoordinatesAlone() throws {
        let config = try load("").get()
        #expect(config.coordination.nodes == nil)
        #expect(config.coordination.candidates(in: config, node: "pi-bedroom") == ["pi-main"])
        #expect(config.summary.contains("coordination: pi-main alone"))
    }

    @Test func theNodesInOrderAndTheLease() throws {
        let config = try load("coordination: {nodes: [pi-bedroom, pi-main], lease: 10s}").get()
        #expect(config.coordination.candidates(in: config, node: "pi-garage") == ["pi-bedroom", "pi-main"])
        #expect(config.coordination.lease == .seconds(10))
        #expect(config.summary.contains("coordination: pi-bedroom, pi-main in that order, lease 10s; note: the broker is embedded"))
    }

    @Test func mistakesAreNamedAtTheirLine() {
        let lines = Self.base.split(separator: "\n", omittingEmptySubsequences: false).count
        let unknown = diagnostics("coordination: {nodes: [pi-main, pi-attic]}")
        #expect(unknown.contains { $0.message.contains("unknown node 'pi-attic'") && $0.line == lines + 1 }, "\(unknown)")
        #expect(diagnostics("coordination: {lease: 500ms}").contains { $0.message.contains("outside 2s...2m") })
        #expect(diagnostics("coordination: {nodes: [pi-main, pi-main]}").contains { $0.message.contains("names a node twice") })
        #expect(diagnostics("coordination: {nodes: []}").contains { $0.message.contains("at least one node") })
        #expect(diagnostics("coordination: {node: [pi-main]}").contains { $0.message.contains("node") })
    }

    /// `mqtt.protocol` (here rather than in a file of its own: the same loader of the example house).
    @Test func theMQTTProtocolVersion() throws {
        let base = Self.base
        func load(_ line: String) -> Result<HouseConfiguration, ConfigurationError> {
            let yaml = base.replacingOccurrences(of: "  broker: embedded ", with: "  protocol: \(line)\n  broker: embedded ")
            #expect(yaml != base)
            do { return .success(try ConfigurationLoader().load(yaml: yaml, file: "house.yaml", boards: HouseFixtures.boards())) }
            catch { return .failure(error) }
        }
        #expect(try load("5").get().mqtt.protocolVersion == .v5)
        #expect(try load("\"3.1.1\"").get().mqtt.protocolVersion == .v311)
        #expect(try load("3.1.1").get().mqtt.protocolVersion == .v311)
        guard case .failure(let error) = load("4") else {
            Issue.record("protocol 4 should be refused")
            return
        }
        #expect(error.diagnostics.contains { $0.message.contains("one of 5, 3.1.1") })
        #expect(try Self.loadPlain().mqtt.protocolVersion == .v5, "MQTT 5 by default")
    }

    static func loadPlain() throws -> HouseConfiguration {
        try ConfigurationLoader().load(yaml: base, file: "house.yaml", boards: HouseFixtures.boards())
    }
}
