import HouseBroker
import HouseBrokerTesting
import HouseMQTT
import HouseTesting
import Testing

/// The client's in-flight window (`MQTTConfiguration.maximumInFlight`): past that many
/// unacknowledged QoS 1/2 messages, further messages wait in the client, in order, and go out as
/// PUBACKs come; nothing is lost or reordered, across a reconnect too. The broker stops reading
/// (`pauseReading`) so that no PUBACK comes until the test says so.
@Suite("The MQTT client's in-flight window", .timeLimit(.minutes(1)))
struct InFlightWindowTests {
    func configuration(_ broker: HouseBroker, _ name: String, window: Int = 100, cleanSession: Bool = true) -> MQTTConfiguration {
        MQTTConfiguration(host: "127.0.0.1", port: broker.port, clientID: name, cleanSession: cleanSession,
                          reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(200)),
                          maximumInFlight: window)
    }

    /// Reads `count` distinct payloads (QoS 1 may bring one twice) in the order they first came.
    func firstArrivals(_ subscription: MQTTSubscription, count: Int) async throws -> [String] {
        var seen: [String] = []
        while seen.count < count {
            let text = try await subscription.next("message \(seen.count + 1) of \(count)").string ?? ""
            if !seen.contains(text) { seen.append(text) }
        }
        return seen
    }

    @Test func messagesBeyondTheWindowWaitInTheClientAndArriveInOrder() async throws {
        try await withTestBroker { broker in
            try await MQTTClient.withConnection(configuration(broker, "window-sub")) { sub in
                let subscription = try await sub.subscribe(to: "window/#", qos: .atLeastOnce)
                try await MQTTClient.withConnection(configuration(broker, "window-pub", window: 3)) { pub in
                    await broker.pauseReading()
                    for i in 0..<10 { try pub.send(MQTTMessage(topic: "window/a", string: "m\(i)", qos: .atLeastOnce)) }
                    // QoS 0 does not count against the window, but keeps its place in line.
                    try pub.send(MQTTMessage(topic: "window/a", string: "m10", qos: .atMostOnce))
                    let held = pub.statistics
                    #expect(held.inFlight == 3)
                    #expect(held.heldDepth == 8)
                    #expect(held.messagesHeld == 8)
                    await broker.resumeReading()
                    #expect(try await firstArrivals(subscription, count: 11) == (0...10).map { "m\($0)" })
                    // Acknowledged only after everything before it was handed over.
                    #expect(try await pub.publish(MQTTMessage(topic: "window/a", string: "end", qos: .atLeastOnce)) == .delivered)
                    let after = pub.statistics
                    #expect(after.heldDepth == 0)
                    #expect(after.inFlight == 0)
                    #expect(after.messagesSent == 12)
                }
            }
        }
    }

    /// An awaited publish held behind the window is answered when its own PUBACK comes; one whose
    /// task is cancelled ends at once and is still delivered.
    @Test func heldPublishesAreAwaitedAndCancelledLikeSentOnes() async throws {
        try await withTestBroker { broker in
            try await MQTTClient.withConnection(configuration(broker, "held-sub")) { sub in
                let subscription = try await sub.subscribe(to: "held/#", qos: .atLeastOnce)
                try await MQTTClient.withConnection(configuration(broker, "held-pub", window: 1)) { pub in
                    await broker.pauseReading()
                    try pub.send(MQTTMessage(topic: "held/a", string: "first", qos: .atLeastOnce))
                    #expect(pub.statistics.inFlight == 1)
                    let awaited = Task { try await pub.publish(MQTTMessage(topic: "held/a", string: "awaited", qos: .atLeastOnce)) }
                    let cancelled = Task { try await pub.publish(MQTTMessage(topic: "held/a", string: "cancelled", qos: .atLeastOnce)) }
                    cancelled.cancel()
                    let outcome: String
                    do {
                        _ = try await cancelled.value
                        outcome = "delivered"
                    } catch is CancellationError {
                        outcome = "cancelled"
                    }
                    #expect(outcome == "cancelled")
                    await broker.resumeReading()
                    #expect(try await awaited.value == .delivered)
                    let arrived = try await firstArrivals(subscription, count: 3)
                    #expect(arrived.first == "first")
                    #expect(Set(arrived) == ["first", "awaited", "cancelled"])
                }
            }
        }
    }

    /// The connection drops while messages wait behind the window: after the reconnect
    /// libmosquitto resends the unacknowledged ones, then the held ones follow, all in order.
    @Test func heldMessagesGoOutAfterAReconnectInOrder() async throws {
        try await withTestBroker { broker in
            let sub = try MQTTClient(configuration: configuration(broker, "drop-sub", cleanSession: false))
            let subscription = try await sub.subscribe(to: "drop/#", qos: .atLeastOnce)
            try await sub.connect()
            let pub = try MQTTClient(configuration: configuration(broker, "drop-pub", window: 2))
            try await pub.connect()
            await broker.pauseReading()
            for i in 0..<6 { try pub.send(MQTTMessage(topic: "drop/a", string: "m\(i)", qos: .atLeastOnce)) }
            #expect(pub.statistics.heldDepth == 4)
            await broker.dropAllConnections()
            await broker.resumeReading()
            #expect(try await firstArrivals(subscription, count: 6) == (0..<6).map { "m\($0)" })
            #expect(try await pub.publish(MQTTMessage(topic: "drop/a", string: "end", qos: .atLeastOnce)) == .delivered)
            #expect(pub.statistics.heldDepth == 0)
            #expect(pub.statistics.connectionLosses == 1)
            await pub.disconnect()
            await sub.disconnect()
        }
    }

    @Test func aWindowBelowOneIsRefused() {
        var configuration = MQTTConfiguration(host: "127.0.0.1", port: 1883)
        configuration.maximumInFlight = 0
        #expect(throws: MQTTError.self) { try MQTTClient(configuration: configuration) }
    }
}
