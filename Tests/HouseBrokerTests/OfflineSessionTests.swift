import HouseBroker
import HouseBrokerTesting
import HouseTesting
import Testing

/// Offline sessions do not pile up: an MQTT 3.1.1 persistent session expires after
/// `persistentSessionExpiry`, an MQTT 5 one after its session expiry interval, and at most
/// `maximumOfflineSessions` are kept; each frees its subscriptions and the messages it held.
@Suite("Offline sessions: expiry and the bound on their number")
struct OfflineSessionTests {
    @Test("an MQTT 3.1.1 session of clean session 0 expires after persistentSessionExpiry; its messages are freed")
    func persistentSessionExpires() async throws {
        try await withTestBroker(configure: { $0.persistentSessionExpiry = .milliseconds(300) }) { broker in
            // Three QoS 1 messages in flight to a client that never acknowledges them, and it goes away.
            let away = try await RawMQTTClient.connect(port: broker.port, clientID: "away", cleanSession: false)
            #expect(try await away.subscribe("held/#", qos: 1) == [1])
            let publisher = try await RawMQTTClient.connect(port: broker.port, clientID: "publisher")
            for index in 1...3 { try await publisher.publish("held/\(index)", "message \(index)", qos: 1, packetID: UInt16(index)) }
            for _ in 1...3 { _ = try await away.expectPublish() }
            let held = try await broker.waitUntil("three messages in flight") { $0.sessions["away"]?.inflightCount == 3 }
            #expect(held.statistics.heldBytes > 0)
            let clock = ContinuousClock()
            let start = clock.now
            await away.kill()
            let expired = try await broker.waitUntil(timeout: .seconds(10), "the session to expire") { $0.sessions["away"] == nil }
            #expect(clock.now - start >= .milliseconds(250))
            #expect(expired.statistics.heldBytes == 0)
            #expect(expired.statistics.subscriptionBytes == 0)
            #expect(expired.statistics.sessionsExpired == 1)
            #expect(expired.statistics.offlineSessions == 0)
            let back = try await RawMQTTClient.connect(port: broker.port, clientID: "away", cleanSession: false, expectSessionPresent: false)
            try await back.disconnect()
            try await publisher.disconnect()
        }
    }

    @Test("past maximumOfflineSessions the session offline longest is discarded (MQTT 5 'never' ones too); one that comes back frees its place")
    func offlineSessionsBounded() async throws {
        try await withTestBroker(configure: { $0.maximumOfflineSessions = 2 }) { broker in
            // "first" (3.1.1) and "forever" (MQTT 5, expiry 0xFFFFFFFF) go offline with a message queued each.
            let first = try await RawMQTTClient.connect(port: broker.port, clientID: "first", cleanSession: false)
            #expect(try await first.subscribe("queued", qos: 1) == [1])
            try await first.disconnect()
            var never = Props5()
            never.sessionExpiry = .max
            let (forever, _) = try await MQTT5Client.connect(port: broker.port, clientID: "forever", properties: never)
            #expect(try await forever.subscribe("queued", options: 1) == [1])
            try await forever.disconnect()
            let publisher = try await RawMQTTClient.connect(port: broker.port, clientID: "publisher")
            try await publisher.publish("queued", "for both", qos: 1)
            let queued = try await broker.waitUntil("a message queued for each") {
                $0.sessions["first"]?.queuedCount == 1 && $0.sessions["forever"]?.queuedCount == 1
            }
            #expect(queued.statistics.offlineSessions == 2)
            let heldForBoth = queued.statistics.heldBytes

            // A third goes offline: "first", offline longest, is discarded with its message.
            let third = try await RawMQTTClient.connect(port: broker.port, clientID: "third", cleanSession: false)
            try await third.disconnect()
            let bounded = try await broker.waitUntil("'first' discarded") { $0.sessions["first"] == nil }
            #expect(bounded.sessions["forever"]?.queuedCount == 1)
            #expect(bounded.sessions["third"] != nil)
            #expect(bounded.statistics.offlineSessions == 2)
            #expect(bounded.statistics.sessionsExpired == 1)
            #expect(bounded.statistics.heldBytes == heldForBoth / 2)

            // "forever" comes back and takes its message; then a fourth fits beside "third".
            let (returned, connack) = try await MQTT5Client.connect(port: broker.port, clientID: "forever", cleanStart: false, properties: never)
            #expect(connack.sessionPresent)
            #expect(try await returned.expectPublish().topic == "queued")
            let fourth = try await RawMQTTClient.connect(port: broker.port, clientID: "fourth", cleanSession: false)
            try await fourth.disconnect()
            let after = try await broker.waitUntil("'fourth' offline") { $0.sessions["fourth"]?.isConnected == false }
            #expect(after.sessions["third"] != nil)
            #expect(after.statistics.offlineSessions == 2)
            #expect(after.statistics.sessionsExpired == 1)
            let firstAgain = try await RawMQTTClient.connect(port: broker.port, clientID: "first", expectSessionPresent: false)
            try await firstAgain.disconnect()
            await returned.kill()
            try await publisher.disconnect()
        }
    }

    @Test("an MQTT 5 session ends when its expiry interval runs out offline, and its messages are freed")
    func mqtt5SessionExpires() async throws {
        try await withTestBroker { broker in
            var oneSecond = Props5()
            oneSecond.sessionExpiry = 1
            // A QoS 1 message in flight to a client that does not acknowledge it, and it goes away.
            let (away, _) = try await MQTT5Client.connect(port: broker.port, clientID: "brief", properties: oneSecond)
            #expect(try await away.subscribe("held", options: 1) == [1])
            let publisher = try await RawMQTTClient.connect(port: broker.port, clientID: "publisher")
            try await publisher.publish("held", "waits", qos: 1)
            _ = try await away.expectPublish()
            let held = try await broker.waitUntil("a message in flight") { $0.sessions["brief"]?.inflightCount == 1 }
            #expect(held.statistics.heldBytes > 0)
            await away.kill()
            // The interval is in whole seconds: the wait is for the broker's event, bounded.
            let expired = try await broker.waitUntil(timeout: .seconds(10), "the session to expire") { $0.sessions["brief"] == nil }
            #expect(expired.statistics.heldBytes == 0)
            #expect(expired.statistics.offlineSessions == 0)
            #expect(expired.statistics.sessionsExpired == 1)
            try await publisher.disconnect()
        }
    }
}
