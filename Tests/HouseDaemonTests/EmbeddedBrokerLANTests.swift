import Foundation
import HouseCore
import HouseMQTT
import HouseTesting
import Testing

/// The embedded broker shared with other Pis (`mqtt.embedded`): a TLS listener where every client
/// logs in, and a plain loopback port for this machine's own controller.
@Suite struct EmbeddedBrokerLANTests {
    @Test func anotherPiSwitchesARelayOverTLSWithItsPasswordAndNobodyGetsInWithoutOne() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("housectl-lan-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificates = try await MosquittoBroker.makeTestCertificates(in: directory)
        let users = directory.appendingPathComponent("broker-users")
        try "pi-main:main-secret\npi-bedroom:bedroom-secret\n".write(to: users, atomically: true, encoding: .utf8)
        let own = directory.appendingPathComponent("mqtt-password")
        try "main-secret\n".write(to: own, atomically: true, encoding: .utf8)
        var config = try HouseFixtures.exampleConfiguration()
        config.mqtt.broker = .embedded(host: "0.0.0.0", port: 8883)
        config.mqtt.embedded = MQTTSettings.EmbeddedListener(passwordFile: users.path, certFile: certificates.serverCertificate.path,
                                                            keyFile: certificates.serverKey.path)
        config.mqtt.username = "pi-main"
        config.mqtt.passwordFile = own.path

        try await withController(configuration: config) { f in
            let broker = try #require(f.controller.broker)
            let local = try #require(broker.loopbackPort)
            #expect(f.controller.brokerPort == local, "the controller logs in on the plain loopback port")
            #expect(broker.port != local)

            func client(_ name: String, user: String?, password: String?, tls: Bool) throws -> MQTTClient {
                var c = MQTTConfiguration(host: "127.0.0.1", port: broker.port, clientID: "lan-\(name)-\(UUID().uuidString.prefix(6))")
                c.connectTimeout = .seconds(5)
                if let user { c.credentials = MQTTCredentials(username: user, password: password.map { .literal($0) } ?? .none) }
                if tls { c.tls = MQTTTLSConfiguration(caFile: certificates.caFile.path) }
                return try MQTTClient(configuration: c)
            }
            // The bedroom Pi: TLS and its password.
            let bedroom = try client("bedroom", user: "pi-bedroom", password: "bedroom-secret", tls: true)
            try await bedroom.connect()
            let states = try await bedroom.subscribe(to: "house/kitchen/kitchen-light/state", qos: .atLeastOnce)
            _ = try await states.next("the retained state", timeout: .seconds(10))
            _ = try await bedroom.publish(MQTTMessage(topic: "house/kitchen/kitchen-light/set", string: "ON", qos: .atLeastOnce))
            let on = try await states.next("ON", timeout: .seconds(10))
            #expect(String(decoding: on.payload, as: UTF8.self) == "ON")
            #expect(f.relayIsOn("kitchen-light") == true)
            await bedroom.disconnect()

            // Without a password, with a wrong one, or in the clear: refused.
            for (name, user, password, tls) in [("anonymous", nil, nil, true), ("wrong", "pi-bedroom", "guess", true),
                                                ("plain", "pi-bedroom", "bedroom-secret", false)] as [(String, String?, String?, Bool)] {
                let intruder = try client(name, user: user, password: password, tls: tls)
                await #expect(throws: MQTTError.self, "\(name)") { try await intruder.connect() }
                await intruder.disconnect()
            }
            #expect(f.edges(of: "kitchen-light").count == 1)
        }
    }
}
