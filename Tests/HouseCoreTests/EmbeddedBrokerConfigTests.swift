import Foundation
import HouseCore
import HouseTesting
import Testing

/// `mqtt.embedded`: the embedded broker shared with other Pis, and the mistakes config check names.
@Suite struct EmbeddedBrokerConfigTests {
    static let base = try! String(contentsOfFile: HouseFixtures.repositoryRoot + "/config/house.yaml", encoding: .utf8)
    static let brokerLines = "  broker: embedded          # start housectl's own broker on 127.0.0.1:1883\n  port: 1883\n"

    func load(_ mqtt: String) -> Result<HouseConfiguration, ConfigurationError> {
        let yaml = Self.base.replacingOccurrences(of: Self.brokerLines, with: mqtt)
        #expect(yaml != Self.base)
        do { return .success(try ConfigurationLoader().load(yaml: yaml, file: "house.yaml", boards: HouseFixtures.boards())) }
        catch { return .failure(error) }
    }

    func messages(_ mqtt: String) -> [String] {
        guard case .failure(let error) = load(mqtt) else { return [] }
        return error.diagnostics.map(\.message)
    }

    @Test func aSharedEmbeddedBrokerHasUsersATLSListenerAndALocalPlainPort() throws {
        let config = try load("""
              broker: embedded
              host: 0.0.0.0
              username: pi-main
              password_file: /etc/housectl/mqtt-password
              embedded: {password_file: /etc/housectl/broker-users, acl_file: /etc/housectl/broker-acl, cert_file: /etc/housectl/server.crt, key_file: /etc/housectl/server.key}

            """).get()
        #expect(config.mqtt.broker == .embedded(host: "0.0.0.0", port: 8883), "TLS: 8883 by default")
        #expect(config.mqtt.embedded == MQTTSettings.EmbeddedListener(passwordFile: "/etc/housectl/broker-users", aclFile: "/etc/housectl/broker-acl",
                                                                     certFile: "/etc/housectl/server.crt", keyFile: "/etc/housectl/server.key"))
        #expect(config.mqtt.localEndpoint == ("127.0.0.1", 1883))
        let plain = try load("  broker: embedded\n  host: 0.0.0.0\n  username: pi-main\n  password_file: /p\n  embedded: {password_file: /u}\n").get()
        #expect(plain.mqtt.localEndpoint == ("127.0.0.1", 1883), "without TLS the one listener, reached on loopback")
    }

    @Test func mistakesAreNamed() {
        #expect(messages("  broker: embedded\n  host: 0.0.0.0\n").contains { $0.contains("listens on this machine only") })
        #expect(messages("  broker: embedded\n  host: 0.0.0.0\n  embedded: {password_file: /u}\n").contains { $0.contains("give mqtt.username") })
        #expect(messages("  broker: embedded\n  username: a\n  password_file: /p\n  embedded: {password_file: /u, cert_file: /c}\n")
            .contains { $0.contains("both cert_file and key_file") })
        #expect(messages("  broker: embedded\n  port: 1883\n  username: a\n  password_file: /p\n  embedded: {password_file: /u, cert_file: /c, key_file: /k}\n")
            .contains { $0.contains("local_port 1883 is the TLS listener's port") })
        #expect(messages("  broker: external\n  host: mqtt.local\n  embedded: {password_file: /u}\n").contains { $0.contains("external") })
        #expect(messages("  broker: embedded\n  embedded: {users: /u}\n").contains { $0.contains("users") })
    }
}
