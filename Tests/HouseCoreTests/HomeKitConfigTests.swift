import Foundation
import HouseCore
import HouseTesting
import Testing

/// `homekit:`: the bridge for Apple Home, off unless enabled; its mistakes named at their line.
@Suite struct HomeKitConfigTests {
    static let base = try! String(contentsOfFile: HouseFixtures.repositoryRoot + "/config/house.yaml", encoding: .utf8)

    func load(_ section: String) -> Result<HouseConfiguration, ConfigurationError> {
        do { return .success(try ConfigurationLoader().load(yaml: Self.base + "\n" + section + "\n", file: "house.yaml", boards: HouseFixtures.boards())) }
        catch { return .failure(error) }
    }

    @Test func offUnlessEnabled() throws {
        #expect(try load("").get().homekit == nil)
        #expect(try load("homekit: {port: 51900}").get().homekit == HomeKitSettings(enabled: false, port: 51900))
        let on = try load("homekit: {enabled: true, bind: 127.0.0.1, pin_file: /etc/housectl/homekit-code}").get().homekit
        #expect(on == HomeKitSettings(enabled: true, bind: "127.0.0.1", port: 51826, pinFile: "/etc/housectl/homekit-code"))
    }

    @Test func mistakesAreNamed() {
        guard case .failure(let error) = load("homekit: {enabeld: true, port: 65536}") else {
            Issue.record("accepted")
            return
        }
        #expect(error.diagnostics.contains { $0.message.contains("enabeld") }, "\(error.diagnostics)")
        #expect(error.diagnostics.contains { $0.message.contains("0...65535") }, "\(error.diagnostics)")
    }
}
