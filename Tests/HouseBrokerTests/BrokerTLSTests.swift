import Foundation
import HouseBroker
import HouseMQTT
import HouseTesting
import Testing

/// The broker fit for the LAN: a TLS listener (the certificate and key files make-certs.sh makes
/// for mosquitto), and no listener beyond this machine that would admit anyone.
@Suite struct BrokerTLSTests {
    func withCertificates(_ body: (MosquittoBroker.TestCertificates, URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("housectl-brokertls-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificates = try await MosquittoBroker.makeTestCertificates(in: directory)
        let other = try await MosquittoBroker.makeTestCertificates(in: directory, name: "other")
        try await body(certificates, other.caFile)
    }

    static func client(port: Int, name: String, tls: MQTTTLSConfiguration?) throws -> MQTTClient {
        var configuration = MQTTConfiguration(host: "127.0.0.1", port: port, clientID: "tls-\(name)-\(UUID().uuidString.prefix(6))")
        configuration.tls = tls
        configuration.connectTimeout = .seconds(5)
        return try MQTTClient(configuration: configuration)
    }

    @Test func aTLSListenerServesTLSClientsAndNobodyInTheClear() async throws {
        try await withCertificates { certificates, otherCA in
            var configuration = HouseBroker.Configuration(host: "127.0.0.1", port: 0, allowAnonymous: true)
            configuration.tls = .init(certificateFile: certificates.serverCertificate.path, keyFile: certificates.serverKey.path)
            let broker = try await HouseBroker.start(configuration)
            let client = try Self.client(port: broker.port, name: "ok", tls: MQTTTLSConfiguration(caFile: certificates.caFile.path))
            try await client.connect()
            let subscription = try await client.subscribe(to: "tls/check", qos: .atLeastOnce)
            _ = try await client.publish(MQTTMessage(topic: "tls/check", string: "over TLS", qos: .atLeastOnce))
            let message = try await subscription.next("the message over TLS", timeout: .seconds(10))
            #expect(String(decoding: message.payload, as: UTF8.self) == "over TLS")
            await client.disconnect()

            // A client in the clear, and one that trusts another CA, get nowhere.
            let plain = try Self.client(port: broker.port, name: "plain", tls: nil)
            await #expect(throws: MQTTError.self) { try await plain.connect() }
            await plain.disconnect()
            let untrusting = try Self.client(port: broker.port, name: "other-ca", tls: MQTTTLSConfiguration(caFile: otherCA.path))
            await #expect(throws: MQTTError.self) { try await untrusting.connect() }
            await untrusting.disconnect()
            await broker.shutdown()
        }
    }

    @Test func aListenerBeyondThisMachineMustAskForPasswords() async throws {
        for configuration in [HouseBroker.Configuration(host: "0.0.0.0", port: 0),
                              HouseBroker.Configuration(host: "0.0.0.0", port: 0, allowAnonymous: true),
                              HouseBroker.Configuration(host: "0.0.0.0", port: 0, passwordFile: try PasswordFile(contents: "alice:secret"), allowAnonymous: true)] {
            await #expect(throws: HouseBrokerError.unauthenticatedListener(host: "0.0.0.0")) { try await HouseBroker.start(configuration) }
        }
        let guarded = try await HouseBroker.start(.init(host: "0.0.0.0", port: 0, passwordFile: try PasswordFile(contents: "alice:secret")))
        #expect(guarded.port > 0)
        await guarded.shutdown()
        #expect(HouseBrokerError.unauthenticatedListener(host: "0.0.0.0").description.contains("password file"))
    }

    @Test func aMissingCertificateIsAClearErrorAtStart() async throws {
        var configuration = HouseBroker.Configuration(host: "127.0.0.1", port: 0)
        configuration.tls = .init(certificateFile: "/nonexistent/server.crt", keyFile: "/nonexistent/server.key")
        do {
            _ = try await HouseBroker.start(configuration)
            Issue.record("a broker started without its certificate")
        } catch let error as HouseBrokerError {
            guard case .tlsSetup(let why) = error else { Issue.record("\(error)"); return }
            #expect(why.contains("/nonexistent/server.crt"))
        }
    }
}
