import Foundation
import HouseCore
import HouseMQTT
import HouseTesting
import Testing
@testable import HouseDaemon

/// TLS and password authentication to mosquitto, end to end with the controller configured the
/// way a Pi is (`mqtt:` username, password_file, tls.ca_file), with a throw-away CA from openssl.
@Suite(.serialized, .enabled(if: MosquittoBroker.shouldRun, "mosquitto not installed: skipping real-broker tests (set CI=true to fail instead)"))
struct SecurityTLSTests {
    struct Setup {
        let directory: URL
        let certificates: MosquittoBroker.TestCertificates
        let untrustedCA: URL
        let passwordFile: URL
        let password: String
    }

    func setup() async throws -> Setup {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("housectl-tls-\(UUID().uuidString)")
        let certificates = try await MosquittoBroker.makeTestCertificates(in: directory)
        let other = try await MosquittoBroker.makeTestCertificates(in: directory, name: "other")
        let password = "tls-pw-\(UUID().uuidString.prefix(8))"
        let brokerPasswords = try await MosquittoBroker.makePasswordFile(in: directory, username: "housectl", password: password)
        _ = brokerPasswords
        let passwordFile = directory.appendingPathComponent("housectl-secret")
        try (password + "\n").write(to: passwordFile, atomically: true, encoding: .utf8)
        return Setup(directory: directory, certificates: certificates, untrustedCA: other.caFile,
                     passwordFile: passwordFile, password: password)
    }

    func configuration(_ s: Setup, port: Int, password: URL? = nil, ca: URL? = nil) throws -> HouseConfiguration {
        var config = try HouseFixtures.exampleConfiguration()
        config.mqtt.broker = .external(host: "127.0.0.1", port: port)
        config.mqtt.username = "housectl"
        config.mqtt.passwordFile = (password ?? s.passwordFile).path
        config.mqtt.tls = MQTTSettings.TLS(caFile: (ca ?? s.certificates.caFile).path)
        return config
    }

    func brokerLines(_ s: Setup) -> [String] {
        s.certificates.listenerLines + ["password_file \(s.directory.appendingPathComponent("passwd").path)", "allow_anonymous false"]
    }

    @Test func theControllerConnectsWithTLSAndAPasswordFromItsConfiguration() async throws {
        let s = try await setup()
        defer { try? FileManager.default.removeItem(at: s.directory) }
        try await withMosquitto(configLines: brokerLines(s)) { broker in
            let config = try configuration(s, port: broker.port)
            try await withController(configuration: config, brokerPort: broker.port) { f in
                #expect(f.controller.client.configuration.tls != nil)
                let client = DaemonClient(host: "127.0.0.1", port: broker.port, baseTopic: "house",
                                          credentials: MQTTCredentials(username: "housectl", password: .file(s.passwordFile.path)),
                                          tls: MQTTTLSConfiguration(caFile: s.certificates.caFile.path), timeout: .seconds(10))
                let reply = try await client.send(.text("turn on the hall light"))
                #expect(reply.status == .done)
                #expect(f.edges(of: "hall-light").count == 1)
            }
            // Nothing in the clear: an anonymous plain-MQTT client gets nowhere.
            let plain = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: broker.port, connectTimeout: .seconds(3)))
            await #expect(throws: MQTTError.self) { try await plain.connect() }
            await plain.disconnect()
        }
    }

    @Test func aWrongPasswordAndAnUntrustedCertificateFailClearly() async throws {
        let s = try await setup()
        defer { try? FileManager.default.removeItem(at: s.directory) }
        try await withMosquitto(configLines: brokerLines(s)) { broker in
            let wrong = s.directory.appendingPathComponent("wrong-secret")
            try "not-the-password\n".write(to: wrong, atomically: true, encoding: .utf8)
            let capture = LogCapture()
            let refused = try configuration(s, port: broker.port, password: wrong)
            try await runSecurityController(refused, port: broker.port, logger: capture.logger()) { controller in
                let line = try await withTimeout(.seconds(20), "the refused credentials logged") {
                    try await capture.line(containing: "refused the credentials")
                }
                #expect(line.contains("127.0.0.1:\(broker.port)"))
                #expect(!controller.client.connectionState.isConnected)
            }
            let untrusted = LogCapture()
            let otherCA = try configuration(s, port: broker.port, ca: s.untrustedCA)
            try await runSecurityController(otherCA, port: broker.port, logger: untrusted.logger()) { controller in
                let line = try await withTimeout(.seconds(20), "the TLS failure logged") {
                    try await untrusted.line(containing: "TLS handshake")
                }
                #expect(line.contains("127.0.0.1:\(broker.port)"))
                #expect(!controller.client.connectionState.isConnected)
            }
            #expect(!(capture.lines + untrusted.lines).contains { $0.contains(s.password) })
        }
    }
}
