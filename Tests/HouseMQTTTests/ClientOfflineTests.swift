import Foundation
import HouseTesting
import Testing
@testable import HouseMQTT

/// Client behaviour that needs no broker: validation, configuration, the offline queue and the
/// reconnect loop against a closed local port, on a `ManualClock`.
@Suite("MQTTClient without a broker", .timeLimit(.minutes(1)))
struct ClientOfflineTests {
    func makeClient(_ tweak: (inout MQTTConfiguration) -> Void = { _ in }, clock: ManualClock = ManualClock(start: Date(timeIntervalSince1970: 0))) throws -> MQTTClient {
        var configuration = MQTTConfiguration(host: "127.0.0.1", port: 1, clientID: "offline-test")
        tweak(&configuration)
        return try MQTTClient(configuration: configuration, clock: clock, random: ScriptedRandom(values: [0]))
    }

    @Test func publishValidatesTopicAndPayloadSize() async throws {
        let client = try makeClient { $0.maximumPayloadSize = 4 }
        await #expect(throws: MQTTError.invalidTopic("a/+/b", reason: "wildcards (+ or #) are only allowed in subscription filters")) {
            try await client.publish(to: "a/+/b", payload: "x")
        }
        await #expect(throws: MQTTError.invalidTopic("", reason: "it is empty")) {
            try await client.publish(to: "", payload: "x")
        }
        await #expect(throws: MQTTError.payloadTooLarge(topic: "a", size: 5, limit: 4)) {
            try await client.publish(to: "a", payload: "12345")
        }
        await #expect(throws: MQTTError.self) { try await client.subscribe(to: "a/#/b") }
        #expect(client.statistics.messagesQueued == 0)
    }

    @Test func publishingWhileDisconnectedQueuesUntilFullAndExpiresByTheInjectedClock() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 0))
        let client = try makeClient({ $0.offlineQueueCapacity = 2; $0.offlineMessageTimeToLive = .seconds(10) }, clock: clock)
        #expect(try await client.publish(to: "a", payload: "1", qos: .atLeastOnce) == .queued)
        #expect(try await client.publish(to: "a", payload: "2", qos: .atLeastOnce, timeToLive: .seconds(60)) == .queued)
        await #expect(throws: MQTTError.offlineQueueFull(capacity: 2)) { try await client.publish(to: "a", payload: "3") }
        clock.advance(by: .seconds(11))
        #expect(try await client.publish(to: "a", payload: "3") == .queued)
        let stats = client.statistics
        #expect(stats.messagesQueued == 3)
        #expect(stats.messagesExpired == 1)
        #expect(stats.offlineQueueDepth == 2)
    }

    /// MQTT 5 values are checked before anything is queued or sent, on either version.
    @Test(arguments: MQTTProtocolVersion.allCases)
    func badPropertiesAndSubscribeOptionsAreRefused(version: MQTTProtocolVersion) async throws {
        let client = try makeClient { $0.protocolVersion = version }
        await #expect(throws: MQTTError.invalidProperty(topic: "a", property: "message expiry interval", reason: "it must be at least 1 second")) {
            try await client.publish(to: "a", payload: "x", properties: MQTTPublishProperties(messageExpiryInterval: 0))
        }
        await #expect(throws: MQTTError.invalidSubscribeOptions(filter: "a", reason: "the subscription identifier 0 is outside 1...134217727")) {
            try await client.subscribe(to: "a", options: MQTTSubscribeOptions(subscriptionIdentifier: 0))
        }
        #expect(client.statistics.messagesQueued == 0)
        #expect(client.activeSubscriptionCount == 0)
        #expect(client.protocolVersion == nil, "not connected")
    }

    @Test func aWillDelayNeedsAWillAndAWillItsPropertiesRight() {
        #expect(throws: MQTTError.invalidConfiguration("a last will delay interval needs a last will")) {
            try makeClient { $0.lastWillDelayInterval = 5 }
        }
        #expect(throws: MQTTError.self) {
            try makeClient { $0.lastWill = MQTTMessage(topic: "w", string: "x", properties: MQTTPublishProperties(responseTopic: "r/+")) }
        }
        #expect(throws: Never.self) {
            try makeClient {
                $0.lastWill = MQTTMessage(topic: "w", string: "x", properties: MQTTPublishProperties(contentType: "text/plain"))
                $0.lastWillDelayInterval = 5
            }
        }
    }

    @Test func disabledQueueMakesOfflinePublishAnError() async throws {
        let client = try makeClient { $0.offlineQueueCapacity = 0 }
        await #expect(throws: MQTTError.notConnected(endpoint: "127.0.0.1:1")) { try await client.publish(to: "a", payload: "1") }
    }

    @Test func invalidConfigurationsAreRejectedClearly() {
        #expect(throws: MQTTError.self) { try makeClient { $0.port = 0 } }
        #expect(throws: MQTTError.self) { try makeClient { $0.keepAlive = .seconds(2) } }
        #expect(throws: MQTTError.self) { try makeClient { $0.lastWill = MQTTMessage(topic: "a/#", string: "x") } }
        #expect(throws: MQTTError.self) { try makeClient { $0.tls = MQTTTLSConfiguration(caFile: "/nonexistent/ca.pem") } }
        #expect(throws: MQTTError.self) { try makeClient { $0.tls = MQTTTLSConfiguration(certificateFile: "/etc/hostname") } }
    }

    @Test func passwordsNeverAppearInDescriptions() throws {
        var configuration = MQTTConfiguration(host: "broker", port: 1883, clientID: "c")
        configuration.credentials = MQTTCredentials(username: "house", password: .literal("s3cret-pw"))
        #expect(!configuration.description.contains("s3cret-pw"))
        #expect(configuration.description.contains("house"))
        #expect(configuration.description.contains("broker:1883"))
        #expect(!"\(configuration)".contains("s3cret-pw"))
    }

    @Test func passwordsComeFromFileOrEnvironment() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mqtt-pw-\(UUID().uuidString)")
        try "from-file\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try MQTTCredentials(username: "u", password: .file(file.path)).resolvePassword() == "from-file")
        #expect(try MQTTCredentials(username: "u", password: .environment("MQTT_PW")).resolvePassword(environment: ["MQTT_PW": "env-pw"]) == "env-pw")
        #expect(throws: MQTTError.self) { try MQTTCredentials(username: "u", password: .environment("MQTT_PW")).resolvePassword(environment: [:]) }
        #expect(throws: MQTTError.self) { try MQTTCredentials(username: "u", password: .file("/nonexistent/pw")).resolvePassword() }
    }

    @Test func connectToAClosedPortSaysHostPortAndReason() async throws {
        let closed = try ClosedPort()
        defer { closed.release() }  // held (refusing) until the test ends
        let port = closed.port
        let client = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: port, connectTimeout: .seconds(10)))
        do {
            try await withTimeout(.seconds(20), "the failed connect") { try await client.connect() }
            Issue.record("connect should fail")
        } catch let error as MQTTError {
            guard case .connectFailed(let endpoint, let reason) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(endpoint == "127.0.0.1:\(port)")
            #expect(reason.lowercased().contains("refused"), "\(reason)")
        }
        #expect(client.statistics.failedConnectAttempts == 1)
        await client.disconnect()
        #expect(client.connectionState == .closed)
    }

    @Test func runRetriesWithBoundedBackoffOnTheInjectedClock() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 0))
        let closed = try ClosedPort()
        defer { closed.release() }  // held (refusing) until the test ends
        let port = closed.port
        var configuration = MQTTConfiguration(host: "127.0.0.1", port: port, connectTimeout: .seconds(3600))
        configuration.reconnect = MQTTReconnectPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(4), multiplier: 2, jitter: 0)
        let client = try MQTTClient(configuration: configuration, clock: clock)
        var states = client.connectionStates().makeAsyncIterator()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await client.run() }
            for (attempt, delay) in [Duration.seconds(1), .seconds(2), .seconds(4), .seconds(4)].enumerated() {
                // Event: the attempt failed (state .disconnected); then the loop sleeps its backoff,
                // the only sleeper on the clock at that point.
                while let state = await states.next() {
                    if case .disconnected(let error) = state {
                        #expect(error != nil)
                        break
                    }
                }
                await clock.waitForSleepers(1)
                #expect(client.statistics.failedConnectAttempts == attempt + 1)
                clock.advance(by: delay - .milliseconds(1))
                #expect(clock.sleeperCount == 1, "woke before the backoff of \(delay) ran out")
                clock.advance(by: .milliseconds(1))
                #expect(clock.sleeperCount == 0)
            }
            await client.disconnect()
            try await group.waitForAll()
        }
        #expect(client.statistics.failedConnectAttempts >= 4)
        #expect(client.connectionState == .closed)
    }
}

@Suite("MQTT connect timeout", .timeLimit(.minutes(1)))
struct ConnectTimeoutTests {
    @Test func aBrokerThatNeverAnswersTimesOutAfterTheConnectTimeout() async throws {
        let listener = try SilentTCPListener()
        let client = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: listener.port, connectTimeout: .seconds(1)))
        // The error names the configured 1 s, not the default 10 s: the configured timeout fired.
        // (No bound on the elapsed time: a busy machine may resume this task seconds later.)
        await #expect(throws: MQTTError.connectTimedOut(endpoint: "127.0.0.1:\(listener.port)", after: .seconds(1))) {
            try await client.connect()
        }
        #expect(client.connectionState == .disconnected(.connectTimedOut(endpoint: "127.0.0.1:\(listener.port)", after: .seconds(1))))
        await client.disconnect()
        #expect(client.connectionState == .closed)
    }
}
