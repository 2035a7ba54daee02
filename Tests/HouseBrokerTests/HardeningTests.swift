@testable import HouseBroker
import HouseTesting
import NIOCore
import Testing

/// Hostile clients against the broker in-process: after each one, a normal client still publishes
/// and receives, and the broker's counted memory stays within its bounds.
@Suite("Broker hardening: limits, bounds and protocol violations")
struct HardeningTests {
    /// A normal client subscribes, publishes and receives its own message at QoS 1.
    static func expectServing(_ broker: HouseBroker, _ line: Int = #line) async throws {
        try await expectServing(port: broker.port, line)
    }

    /// The same against a broker on `port` (a broker process, say).
    static func expectServing(port: Int, _ line: Int = #line) async throws {
        let client = try await RawMQTTClient.connect(port: port, clientID: "normal-\(line)")
        #expect(try await client.subscribe("check/\(line)", qos: 1) == [1])
        try await client.send(RawMQTT.publish(topic: "check/\(line)", "still serving", qos: 1, packetID: 7))
        // The PUBACK and the delivery may come in either order.
        let packets = [try await client.next(), try await client.next()]
        #expect(packets.contains(.puback(7)))
        let delivered = packets.compactMap { if case .publish(let p) = $0 { p } else { nil } }
        #expect(delivered.map(\.payloadString) == ["still serving"])
        if let message = delivered.first { try await client.send(RawMQTT.puback(message.packetID)) }
        try await client.disconnect()
    }

    /// A filter of `levels` levels: `a/a/.../a`.
    static func deepFilter(levels: Int, last: String = "a") -> String {
        String(repeating: "a/", count: levels - 1) + last
    }

    @Test("a filter of 20,000 levels is refused with SUBACK 0x80 and a matching PUBLISH is dropped; nothing crashes")
    func deepSubscriptionIsRefused() async throws {
        try await withTestBroker { broker in
            let hostile = try await RawMQTTClient.connect(port: broker.port, clientID: "deep")
            #expect(try await hostile.subscribe(Self.deepFilter(levels: 20_000, last: "#")) == [0x80])
            #expect(try await hostile.subscribe(Self.deepFilter(levels: 201)) == [0x80])
            #expect(try await hostile.subscribe(Self.deepFilter(levels: 200)) == [0])
            try await hostile.publish(Self.deepFilter(levels: 20_000), "deep", qos: 1, packetID: 3)
            try await hostile.expectNothingPending()
            let statistics = await broker.snapshot().statistics
            #expect(statistics.subscriptionsRefused == 2)
            #expect(statistics.publishesRefused == 1)
            try await Self.expectServing(broker)
        }
    }

    @Test("matching and pruning are loops: 60,000 levels (limit raised) subscribe, match and unsubscribe")
    func deepTreeWalksDoNotRecurse() async throws {
        try await withTestBroker(configure: {
            $0.maximumTopicLevels = 65_535
            $0.maximumTopicLength = 65_535
            $0.maximumSubscriptionBytesPerClient = 1 << 30
            $0.maximumSubscriptionBytes = 1 << 30
        }) { broker in
            let deep = try await RawMQTTClient.connect(port: broker.port, clientID: "deep")
            let filter = String(repeating: "+/", count: 30_000) + "#"
            #expect(try await deep.subscribe(filter) == [0])
            let topic = Self.deepFilter(levels: 30_001)
            try await deep.publish(topic, "reached", qos: 0)
            #expect(try await deep.expectPublish().payloadString == "reached")
            #expect(await broker.snapshot().statistics.subscriptionTreeNodes == 30_002)
            try await deep.send(RawMQTT.unsubscribe([filter], packetID: 2))
            #expect(try await deep.next() == .unsuback(2))
            let statistics = await broker.snapshot().statistics
            #expect(statistics.subscriptionTreeNodes == 1)
            #expect(statistics.subscriptionBytes == 0)
            try await Self.expectServing(broker)
        }
    }

    @Test("twenty 64 KiB SUBSCRIBEs of 65,535 levels cost nothing: all refused, the tree stays empty")
    func subscriptionFloodCostsNothing() async throws {
        try await withTestBroker { broker in
            for index in 0..<20 {
                let hostile = try await RawMQTTClient.connect(port: broker.port, clientID: "flood-\(index)")
                #expect(try await hostile.subscribe(String(repeating: "/", count: 65_534)) == [0x80])
            }
            let statistics = await broker.snapshot().statistics
            #expect(statistics.subscriptionTreeNodes == 1)
            #expect(statistics.subscriptionBytes == 0)
            #expect(statistics.subscriptionsRefused == 20)
            try await Self.expectServing(broker)
        }
    }

    @Test("topic length: a longer topic is not routed (acknowledged, counted); a longer filter gets 0x80")
    func topicLength() async throws {
        try await withTestBroker(configure: { $0.maximumTopicLength = 64 }) { broker in
            let client = try await RawMQTTClient.connect(port: broker.port, clientID: "long")
            #expect(try await client.subscribe([("#", 1), (String(repeating: "x", count: 65), 0)]) == [1, 0x80])
            try await client.publish(String(repeating: "y", count: 65), "too long", qos: 1, packetID: 4)
            try await client.publish(String(repeating: "y", count: 64), "fits", qos: 0)
            // Only the topic within the limit arrives.
            #expect(try await client.expectPublish().payloadString == "fits")
            try await client.expectNothingPending()
            #expect(await broker.snapshot().statistics.publishesRefused == 1)
        }
    }

    @Test("subscriptions per client: the one past the limit gets 0x80; a new QoS for a held filter is still granted")
    func subscriptionsPerClient() async throws {
        try await withTestBroker(configure: { $0.maximumSubscriptionsPerClient = 3 }) { broker in
            let client = try await RawMQTTClient.connect(port: broker.port, clientID: "many")
            #expect(try await client.subscribe([("a", 0), ("b", 0), ("c", 0), ("d", 0)]) == [0, 0, 0, 0x80])
            #expect(try await client.subscribe("a", qos: 2, packetID: 2) == [2])
            #expect(await broker.snapshot().sessions["many"]?.subscriptions.count == 3)
            // Another client has its own allowance.
            let other = try await RawMQTTClient.connect(port: broker.port, clientID: "other")
            #expect(try await other.subscribe("d") == [0])
        }
    }

    @Test("subscription memory: per client and in total, within the configured bytes")
    func subscriptionBytes() async throws {
        let cost = SubscriptionCost.of(filter: "room/00/light")
        try await withTestBroker(configure: {
            $0.maximumSubscriptionBytesPerClient = 3 * cost
            $0.maximumSubscriptionBytes = 5 * cost
        }) { broker in
            let first = try await RawMQTTClient.connect(port: broker.port, clientID: "first")
            let filters = (0..<4).map { ("room/0\($0)/light", UInt8(0)) }
            #expect(try await first.subscribe(filters) == [0, 0, 0, 0x80])
            let second = try await RawMQTTClient.connect(port: broker.port, clientID: "second")
            #expect(try await second.subscribe(filters) == [0, 0, 0x80, 0x80])
            #expect(await broker.snapshot().statistics.subscriptionBytes == 5 * cost)
            // Leaving frees the allowance.
            try await first.disconnect()
            _ = try await broker.waitUntil("first gone") { $0.statistics.subscriptionBytes == 2 * cost }
            #expect(try await second.subscribe(filters, packetID: 2) == [0, 0, 0, 0x80])
        }
    }

    @Test("retained messages: past the byte bound a message is delivered but not retained")
    func retainedBytes() async throws {
        try await withTestBroker(configure: { $0.maximumRetainedBytes = 100 }) { broker in
            let client = try await RawMQTTClient.connect(port: broker.port, clientID: "keeper")
            let watcher = try await RawMQTTClient.connect(port: broker.port, clientID: "watcher")
            #expect(try await watcher.subscribe("r/#") == [0])
            let fifty = String(repeating: "p", count: 47)   // 3 bytes of topic: 50 in all
            try await client.publish("r/1", fifty, qos: 1, retain: true, packetID: 1)
            try await client.publish("r/2", fifty, qos: 1, retain: true, packetID: 2)
            try await client.publish("r/3", fifty, qos: 1, retain: true, packetID: 3)
            for _ in 0..<3 { #expect(try await watcher.expectPublish().payloadString == fifty) }
            var snapshot = await broker.snapshot()
            #expect(Set(snapshot.retained.keys) == ["r/1", "r/2"])
            #expect(snapshot.statistics.retainedBytes == 100 && snapshot.statistics.retainedRefused == 1)
            // Clearing one makes room; replacing one is counted once.
            try await client.publish("r/1", "", qos: 1, retain: true, packetID: 4)
            try await client.publish("r/3", "small", qos: 1, retain: true, packetID: 5)
            try await client.publish("r/3", "smaller", qos: 1, retain: true, packetID: 6)
            snapshot = await broker.snapshot()
            #expect(Set(snapshot.retained.keys) == ["r/2", "r/3"])
            #expect(snapshot.statistics.retainedBytes == 50 + 3 + 7)
        }
    }

    @Test("queued messages of all clients stay within maximumTotalQueuedBytes; the rest is dropped and counted")
    func totalQueuedBytes() async throws {
        try await withTestBroker(configure: { $0.maximumTotalQueuedBytes = 10_000 }) { broker in
            // Two persistent sessions go offline: their QoS 1 messages queue.
            for id in ["away-1", "away-2"] {
                let client = try await RawMQTTClient.connect(port: broker.port, clientID: id, cleanSession: false)
                #expect(try await client.subscribe("flood", qos: 1) == [1])
                try await client.disconnect()
            }
            let publisher = try await RawMQTTClient.connect(port: broker.port, clientID: "publisher")
            let payload = String(repeating: "z", count: 995)   // 1000 bytes with the topic
            for index in 0..<20 {
                try await publisher.publish("flood", payload, qos: 1, packetID: UInt16(index + 1))
            }
            let snapshot = await broker.snapshot()
            #expect(snapshot.statistics.heldBytes == 10_000)
            #expect(snapshot.statistics.messagesDropped == 30)
            // The messages that were kept arrive; the counts go back to zero.
            let back = try await RawMQTTClient.connect(port: broker.port, clientID: "away-1", cleanSession: true)
            try await back.disconnect()
            _ = try await broker.waitUntil("away-1 discarded") { $0.statistics.heldBytes < 10_000 }
            try await Self.expectServing(broker)
        }
    }

    @Test("before its CONNECT a connection may not make the broker buffer more than a CONNECT can hold")
    func firstPacketIsBounded() async throws {
        try await withTestBroker { broker in
            let hostile = try await RawMQTTClient.open(port: broker.port)
            // A CONNECT header announcing 1 MiB, then some of it.
            // The broker may close while the rest is still being written: a failed write is expected.
            try? await hostile.send([0x10] + RawMQTT.remainingLength(1 << 20) + [UInt8](repeating: 0, count: 1000))
            try await hostile.expectClosed()
            #expect(await broker.snapshot().statistics.protocolErrors == 1)
            try await Self.expectServing(broker)
        }
    }

    @Test("connections waiting for their CONNECT are bounded; a CONNECTed client frees its place")
    func pendingConnectionsAreBounded() async throws {
        try await withTestBroker(configure: { $0.maximumPendingConnections = 2 }) { broker in
            let first = try await RawMQTTClient.open(port: broker.port, name: "first")
            let second = try await RawMQTTClient.open(port: broker.port, name: "second")
            let third = try await RawMQTTClient.open(port: broker.port, name: "third")
            try await third.expectClosed()
            try await first.send(RawMQTT.connect(clientID: "first"))
            #expect(try await first.next() == .connack(sessionPresent: false, code: 0))
            let fourth = try await RawMQTTClient.open(port: broker.port, name: "fourth")
            try await fourth.send(RawMQTT.connect(clientID: "fourth"))
            #expect(try await fourth.next() == .connack(sessionPresent: false, code: 0))
            #expect(second.isOpen)
        }
    }

    // MARK: - Protocol violations

    /// An acknowledgement of the wrong kind for the message's QoS flow.
    enum WrongAck: String, CaseIterable, Sendable {
        case pubcompForQoS1, pubrecForQoS1, pubackForQoS2, pubcompBeforePubrec

        var qos: UInt8 { self == .pubcompForQoS1 || self == .pubrecForQoS1 ? 1 : 2 }

        func packet(_ id: UInt16) -> [UInt8] {
            switch self {
            case .pubcompForQoS1, .pubcompBeforePubrec: RawMQTT.pubcomp(id)
            case .pubrecForQoS1: RawMQTT.pubrec(id)
            case .pubackForQoS2: RawMQTT.puback(id)
            }
        }
    }

    @Test("a wrong acknowledgement (PUBCOMP or PUBREC for QoS 1, PUBACK for QoS 2, PUBCOMP before PUBREC) closes the connection with no answer",
          arguments: WrongAck.allCases)
    func wrongAcknowledgement(_ wrong: WrongAck) async throws {
        try await withTestBroker { broker in
            let subscriber = try await RawMQTTClient.connect(port: broker.port, clientID: "wrong-\(wrong.rawValue)")
            #expect(try await subscriber.subscribe("t", qos: wrong.qos) == [wrong.qos])
            let publisher = try await RawMQTTClient.connect(port: broker.port, clientID: "pub")
            try await publisher.publish("t", "m", qos: wrong.qos)
            let message = try await subscriber.expectPublish()
            try await subscriber.send(wrong.packet(message.packetID))
            // Closed, and nothing (no PUBREL) sent before the close.
            try await subscriber.expectClosed()
            #expect(await broker.snapshot().statistics.protocolErrors == 1)
            try await Self.expectServing(broker)
        }
    }

    @Test("acknowledgements for ids not in flight get no answer and keep the connection; PUBREL of an unknown id gets PUBCOMP (MQTT-4.3.3-2)")
    func unknownIDs() async throws {
        try await withTestBroker { broker in
            let client = try await RawMQTTClient.connect(port: broker.port, clientID: "stray")
            try await client.send(RawMQTT.puback(41) + RawMQTT.pubrec(42) + RawMQTT.pubcomp(43))
            try await client.expectNothingPending()
            try await client.send(RawMQTT.pubrel(44))
            #expect(try await client.next() == .pubcomp(44))
            #expect(await broker.snapshot().statistics.protocolErrors == 0)
        }
    }

    @Test("a repeated PUBREC is answered with PUBREL again and the flow completes")
    func repeatedPubrec() async throws {
        try await withTestBroker { broker in
            let subscriber = try await RawMQTTClient.connect(port: broker.port, clientID: "twice")
            #expect(try await subscriber.subscribe("t", qos: 2) == [2])
            let publisher = try await RawMQTTClient.connect(port: broker.port, clientID: "pub")
            try await publisher.publish("t", "m", qos: 2)
            let message = try await subscriber.expectPublish()
            try await subscriber.send(RawMQTT.pubrec(message.packetID))
            #expect(try await subscriber.next() == .pubrel(message.packetID))
            try await subscriber.send(RawMQTT.pubrec(message.packetID))
            #expect(try await subscriber.next() == .pubrel(message.packetID))
            try await subscriber.send(RawMQTT.pubcomp(message.packetID))
            try await subscriber.expectNothingPending()
            _ = try await broker.waitUntil("nothing in flight") { $0.sessions["twice"]?.inflightCount == 0 }
        }
    }

    // MARK: - ACL deny rules

    static let denyACL = """
        user guest
        topic read #
        topic write house/+/+/set
        topic deny house/secrets/#
        user admin
        topic readwrite #
        """

    @Test("deny: every topic but X can be read; X is neither delivered, retained to nor publishable")
    func aclDeny() async throws {
        let acl = try AccessControlList(contents: Self.denyACL)
        #expect(acl.hasDenyRules)
        try await withTestBroker(configure: { $0.accessControl = acl }) { broker in
            let admin = try await RawMQTTClient.connect(port: broker.port, clientID: "admin", username: "admin")
            try await admin.publish("house/secrets/code", "1234", qos: 1, retain: true)
            try await admin.publish("house/hall/state", "ON", qos: 1, retain: true, packetID: 2)
            let guest = try await RawMQTTClient.connect(port: broker.port, clientID: "guest", username: "guest")
            #expect(try await guest.subscribe([("#", 1), ("house/secrets/code", 1), ("house/+/code", 1)]) == [1, 0x80, 1])
            // Only the allowed retained message comes, through the allowed subscriptions.
            let retained = try await guest.expectPublish()
            #expect(retained.topic == "house/hall/state")
            try await guest.send(RawMQTT.puback(retained.packetID))
            try await guest.expectNothingPending()
            try await admin.publish("house/secrets/code", "5678", qos: 1, packetID: 3)
            try await admin.publish("house/hall/light", "OFF", qos: 1, packetID: 4)
            let live = try await guest.expectPublish()
            #expect(live.topic == "house/hall/light")
            try await guest.send(RawMQTT.puback(live.packetID))
            // The guest may not publish under the denied tree, even where a write rule matches.
            try await guest.publish("house/secrets/door/set", "x", qos: 1, packetID: 5)
            #expect(await broker.snapshot().retained["house/secrets/code"]?.payloadString == "1234")
            #expect(await broker.snapshot().statistics.publishesDenied == 1)
        }
    }

    @Test("deny parses in users and patterns and names a bad access word with its line")
    func aclDenyParsing() throws {
        let acl = try AccessControlList(contents: "topic readwrite #\npattern deny private/%c/#\n")
        #expect(acl.mayRead(topic: "private/x/a", user: nil, clientID: "y"))
        #expect(!acl.mayRead(topic: "private/x/a", user: nil, clientID: "x"))
        #expect(!acl.maySubscribe(filter: "private/x/#", user: nil, clientID: "x"))
        #expect(acl.maySubscribe(filter: "private/+/#", user: nil, clientID: "x"))
        #expect(!acl.mayPublish(topic: "private/x/a", user: nil, clientID: "x"))
        #expect(acl.mayPublish(topic: "private/x/a", user: nil, clientID: "y"))
        #expect(throws: HouseBrokerError.invalidConfigurationFile(
            path: "acl", line: 2, message: "access must be read, write, readwrite or deny, not 'denied'")) {
            try AccessControlList(contents: "user a\ntopic denied x\n", path: "acl")
        }
        #expect(try !AccessControlList(contents: "topic read #").hasDenyRules)
    }

    // MARK: - Tree units

    @Test("the subscription tree recycles pruned nodes")
    func treeRecyclesNodes() {
        var tree = SubscriptionTree()
        for round in 0..<3 {
            tree.insert(filter: "a/b/c/d", clientID: "x", subscription: .init(qos: .atMostOnce))
            tree.insert(filter: "a/b/e", clientID: "y", subscription: .init(qos: .atMostOnce))
            #expect(tree.nodeCount == 6, "round \(round)")
            tree.remove(filter: "a/b/c/d", clientID: "x")
            #expect(tree.nodeCount == 4)
            tree.remove(filter: "a/b/e", clientID: "y")
            #expect(tree.nodeCount == 1)
        }
    }
}
