import Foundation
import HouseTesting
import Testing
@testable import HouseMQTT

@Suite("MQTT connect failures against a real mosquitto", .enabled(if: MosquittoBroker.shouldRun, "mosquitto not installed (CI=true makes this a failure)"), .timeLimit(.minutes(2)))
struct FailureTests {
    /// MQTT 3.1.1 says CONNACK 4 or 5; MQTT 5 a reason code, shown with its text.
    @Test(arguments: MQTTProtocolVersion.allCases)
    func wrongPasswordIsAnAuthenticationError(version: MQTTProtocolVersion) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let passwords = try await MosquittoBroker.makePasswordFile(in: directory, username: "house", password: "right-pw")
        try await withMosquitto(configLines: ["password_file \(passwords.path)", "allow_anonymous false"]) { broker in
            var wrong = configuration(broker, "wrong")
            wrong.protocolVersion = version
            wrong.credentials = MQTTCredentials(username: "house", password: .literal("wrong-pw"))
            let client = try MQTTClient(configuration: wrong)
            do {
                try await client.connect()
                Issue.record("connect with a wrong password succeeded")
            } catch let error as MQTTError {
                guard case .authenticationFailed(let endpoint, let code, _) = error else {
                    Issue.record("expected authenticationFailed, got \(error)")
                    return
                }
                #expect(endpoint == "127.0.0.1:\(broker.port)")
                switch version {
                case .v311:
                    #expect(code == 4 || code == 5)
                    #expect(error.reasonCode == nil)
                case .v5:
                    // mosquitto 2.0 answers a wrong password with "not authorized".
                    #expect(error.reasonCode == .notAuthorized || error.reasonCode == .badUserNameOrPassword)
                    #expect("\(error)".contains("(0x8"), "the reason code is shown: \(error)")
                }
                #expect(!"\(error)".contains("wrong-pw"))
            }
            await client.disconnect()

            let file = directory.appendingPathComponent("client-pw")
            try "right-pw\n".write(to: file, atomically: true, encoding: .utf8)
            var right = configuration(broker, "right")
            right.protocolVersion = version
            right.credentials = MQTTCredentials(username: "house", password: .file(file.path))
            try await MQTTClient.withConnection(right) { client in
                #expect(client.connectionState.isConnected)
                #expect(client.protocolVersion == version)
            }
        }
    }

    @Test func untrustedCertificateIsATLSError() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await MosquittoBroker.makeTestCertificates(in: directory, name: "server")
        let stranger = try await MosquittoBroker.makeTestCertificates(in: directory, name: "stranger")
        try await withMosquitto(configLines: server.listenerLines) { broker in
            var untrusted = configuration(broker, "tls-bad")
            untrusted.tls = MQTTTLSConfiguration(caFile: stranger.caFile.path)
            let client = try MQTTClient(configuration: untrusted)
            do {
                try await client.connect()
                Issue.record("TLS connect with an untrusted certificate succeeded")
            } catch let error as MQTTError {
                guard case .tlsFailed(let endpoint, let reason) = error else {
                    Issue.record("expected tlsFailed, got \(error)")
                    return
                }
                #expect(endpoint == "127.0.0.1:\(broker.port)")
                #expect(reason.contains("verify"), "\(reason)")
            }
            await client.disconnect()

            var trusted = configuration(broker, "tls-good")
            trusted.tls = MQTTTLSConfiguration(caFile: server.caFile.path)
            try await MQTTClient.withConnection(trusted) { client in
                let subscription = try await client.subscribe(to: "tls/#")
                try await client.publish(to: "tls/x", payload: "secure", qos: .atLeastOnce)
                #expect(try await next(subscription).string == "secure")
            }
        }
    }
}

@Suite("MQTT connect to an unreachable host", .timeLimit(.minutes(1)))
struct UnreachableTests {
    @Test func unreachableHostFailsWithinABoundedTime() async throws {
        let client = try MQTTClient(configuration: MQTTConfiguration(host: "10.255.255.1", port: 9, connectTimeout: .seconds(2)))
        let clock = ContinuousClock()
        let start = clock.now
        do {
            try await withTimeout(.seconds(30), "the unreachable connect") { try await client.connect() }
            Issue.record("connect to an unreachable host succeeded")
        } catch let error as MQTTError {
            switch error {
            case .connectTimedOut(let endpoint, _), .connectFailed(let endpoint, _):
                #expect(endpoint == "10.255.255.1:9")
            default:
                Issue.record("unexpected error \(error)")
            }
        }
        #expect(clock.now - start < .seconds(15))
        await client.disconnect()
    }
}
