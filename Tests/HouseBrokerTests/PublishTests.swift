import HouseBroker
import HouseTesting
import Testing

@Suite("PUBLISH, QoS flows, subscriptions and retained messages")
struct PublishTests {
    @Test("QoS 0, 1 and 2 from publisher to subscriber at min(publish QoS, subscription QoS)",
          arguments: [(UInt8(0), UInt8(0)), (0, 2), (1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2)])
    func qosDowngrade(publishQoS: UInt8, subscriptionQoS: UInt8) async throws {
        try await withTestBroker { broker in
            let subscriber = try await RawMQTTClient.connect(port: broker.port, clientID: "sub")
            #expect(try await subscriber.subscribe("t/q", qos: subscriptionQoS) == [subscriptionQoS])
            let publisher = try await RawMQTTClient.connect(port: broker.port, clientID: "pub")
            try await publisher.publish("t/q", "m", qos: publishQoS, packetID: 7)
            let message = try await subscriber.expectPublish()
            let expected = min(publishQoS, subscriptionQoS)
            #expect(message.qos == expected)
            #expect(!message.retain)
            #expect(!message.dup)
            switch expected {
            case 1:
                #expect(message.packetID != 0)
                try await subscriber.send(RawMQTT.puback(message.packetID))
            case 2:
                try await subscriber.send(RawMQTT.pubrec(message.packetID))
                #expect(try await subscriber.next() == .pubrel(message.packetID))
                try await subscriber.send(RawMQTT.pubcomp(message.packetID))
            default:
                break
            }
            try await subscriber.expectNothingPending()
            let snapshot = try await broker.waitUntil { $0.sessions["sub"]?.inflightCount == 0 }
            #expect(snapshot.received.count == 1)
            #expect(snapshot.received.first?.qos.rawValue == publishQoS)
        }
    }

    @Test("a duplicate QoS 2 PUBLISH before PUBREL is delivered once")
    func qos2Duplicate() async throws {
        try await withTestBroker { broker in
            let subscriber = try await RawMQTTClient.connect(port: broker.port, clientID: "sub")
            try await subscriber.subscribe("q2")
            let publisher = try await RawMQTTClient.connect(port: broker.port, clientID: "pub")
            try await publisher.send(RawMQTT.publish(topic: "q2", "once", qos: 2, packetID: 9))
            #expect(try await publisher.next() == .pubrec(9))
            try await publisher.send(RawMQTT.publish(topic: "q2", payload: Array("once".utf8), qos: 2, dup: true, packetID: 9))
            #expect(try await publisher.next() == .pubrec(9))
            try await publisher.send(RawMQTT.pubrel(9))
            #expect(try await publisher.next() == .pubcomp(9))
            #expect(try await subscriber.expectPublish().payloadString == "once")
            try await subscriber.expectNothingPending()
        }
    }

    @Test("overlapping subscriptions deliver once at the highest granted QoS")
    func overlapping() async throws {
        try await withTestBroker { broker in
            let subscriber = try await RawMQTTClient.connect(port: broker.port, clientID: "sub")
            #expect(try await subscriber.subscribe([("a/+", 0), ("a/#", 2), ("a/b", 1)]) == [0, 2, 1])
            let publisher = try await RawMQTTClient.connect(port: broker.port, clientID: "pub")
            try await publisher.publish("a/b", "x", qos: 2)
            let message = try await subscriber.expectPublish()
            #expect(message.qos == 2)
            try await subscriber.send(RawMQTT.pubrec(message.packetID))
            #expect(try await subscriber.next() == .pubrel(message.packetID))
            try await subscriber.send(RawMQTT.pubcomp(message.packetID))
            try await subscriber.expectNothingPending()
        }
    }

    @Test("wildcards match as specified and $-topics are not matched by a leading wildcard", arguments: [
        ("sport/tennis/player1/#", "sport/tennis/player1", true),
        ("sport/tennis/player1/#", "sport/tennis/player1/ranking", true),
        ("sport/#", "sport", true),
        ("#", "a/b/c", true),
        ("sport/+", "sport", false),
        ("sport/+", "sport/", true),
        ("+/+", "/finance", true),
        ("/+", "/finance", true),
        ("+", "/finance", false),
        ("+/tennis/#", "sport/tennis", true),
        ("a/b", "a/b/c", false),
        ("#", "$SYS/uptime", false),
        ("+/uptime", "$SYS/uptime", false),
        ("$SYS/#", "$SYS/uptime", true),
    ])
    func wildcards(filter: String, topic: String, matches: Bool) async throws {
        try await withTestBroker { broker in
            let subscriber = try await RawMQTTClient.connect(port: broker.port, clientID: "sub")
            #expect(try await subscriber.subscribe(filter, qos: 1) == [1])
            let publisher = try await RawMQTTClient.connect(port: broker.port, clientID: "pub")
            try await publisher.publish(topic, "x", qos: 1)
            if matches {
                #expect(try await subscriber.expectPublish().topic == topic)
            } else {
                try await subscriber.expectNothingPending()
            }
        }
    }

    @Test("an invalid filter gets 0x80 while valid ones in the same SUBSCRIBE are granted")
    func invalidFilter() async throws {
        try await withTestBroker { broker in
            let subscriber = try await RawMQTTClient.connect(port: broker.port, clientID: "sub")
            #expect(try await subscriber.subscribe([("a/#/b", 1), ("ok/+", 2), ("a+", 0)]) == [0x80, 2, 0x80])
            #expect(await broker.snapshot().sessions["sub"]?.subscriptions == ["ok/+": .exactlyOnce])
        }
    }

    @Test("UNSUBSCRIBE stops delivery and is acknowledged even for unknown filters")
    func unsubscribe() async throws {
        try await withTestBroker { broker in
            let subscriber = try await RawMQTTClient.connect(port: broker.port, clientID: "sub")
            try await subscriber.subscribe([("x/1", 0), ("x/2", 0)])
            try await subscriber.send(RawMQTT.unsubscribe(["x/1", "never"], packetID: 5))
            #expect(try await subscriber.next() == .unsuback(5))
            #expect(await broker.snapshot().sessions["sub"]?.subscriptions == ["x/2": .atMostOnce])
            let publisher = try await RawMQTTClient.connect(port: broker.port, clientID: "pub")
            try await publisher.publish("x/1", "no", qos: 1)
            try await publisher.publish("x/2", "yes", qos: 1)
            #expect(try await subscriber.expectPublish().payloadString == "yes")
            try await subscriber.expectNothingPending()
        }
    }

    @Test("re-subscribing replaces the QoS and re-sends retained messages")
    func resubscribe() async throws {
        try await withTestBroker { broker in
            let publisher = try await RawMQTTClient.connect(port: broker.port, clientID: "pub")
            try await publisher.publish("r/1", "kept", qos: 1, retain: true)
            let subscriber = try await RawMQTTClient.connect(port: broker.port, clientID: "sub")
            try await subscriber.subscribe("r/+", qos: 0)
            #expect(try await subscriber.expectPublish().retain)
            try await subscriber.subscribe("r/+", qos: 1, packetID: 2)
            let again = try await subscriber.expectPublish()
            #expect(again.retain && again.qos == 1)
            #expect(await broker.snapshot().sessions["sub"]?.subscriptions == ["r/+": .atLeastOnce])
        }
    }

    @Test("retained: set, replace, deliver with retain flag on subscribe, clear with empty payload")
    func retained() async throws {
        try await withTestBroker { broker in
            let publisher = try await RawMQTTClient.connect(port: broker.port, clientID: "pub")
            try await publisher.publish("house/lamp/state", "ON", qos: 1, retain: true)
            try await publisher.publish("house/lamp/state", "OFF", qos: 1, retain: true)
            try await publisher.publish("house/fan/state", "ON", qos: 0, retain: true)
            let store = try await broker.waitUntil { $0.retained.count == 2 }.retained
            #expect(store["house/lamp/state"]?.payloadString == "OFF")

            let subscriber = try await RawMQTTClient.connect(port: broker.port, clientID: "sub")
            try await subscriber.subscribe("house/+/state", qos: 1)
            var got: [String: RawPublish] = [:]
            for _ in 0..<2 {
                let message = try await subscriber.expectPublish()
                got[message.topic] = message
                if message.qos == 1 { try await subscriber.send(RawMQTT.puback(message.packetID)) }
            }
            #expect(got["house/lamp/state"]?.payloadString == "OFF")
            #expect(got["house/lamp/state"]?.retain == true)
            #expect(got["house/lamp/state"]?.qos == 1)
            #expect(got["house/fan/state"]?.qos == 0)

            // A retained publish to a current subscriber arrives with retain 0 (MQTT-3.3.1-9).
            try await publisher.publish("house/lamp/state", "ON", qos: 0, retain: true)
            let live = try await subscriber.expectPublish()
            #expect(!live.retain)

            // An empty retained payload clears the topic and is forwarded as normal.
            try await publisher.publish("house/lamp/state", "", qos: 0, retain: true)
            #expect(try await subscriber.expectPublish().payload.isEmpty)
            let cleared = try await broker.waitUntil { $0.retained["house/lamp/state"] == nil }
            #expect(cleared.retained.count == 1)
            let late = try await RawMQTTClient.connect(port: broker.port, clientID: "late")
            try await late.subscribe("house/lamp/state")
            try await late.expectNothingPending()
        }
    }

    @Test("persistent session queues QoS 1/2 while offline, not QoS 0, and redelivers unacked with DUP")
    func offlineQueueAndRedelivery() async throws {
        try await withTestBroker { broker in
            var subscriber = try await RawMQTTClient.connect(port: broker.port, clientID: "sub", cleanSession: false)
            try await subscriber.subscribe("q/#", qos: 2)
            let publisher = try await RawMQTTClient.connect(port: broker.port, clientID: "pub")

            // One QoS 1 and one QoS 2 delivered but not acknowledged, then the subscriber vanishes.
            try await publisher.publish("q/1", "one", qos: 1)
            try await publisher.publish("q/2", "two", qos: 2)
            let first = try await subscriber.expectPublish()
            let second = try await subscriber.expectPublish()
            #expect(first.payloadString == "one" && second.payloadString == "two")
            await subscriber.kill()
            try await broker.waitForDisconnect("sub")

            // While offline: QoS 0 is not kept, QoS 1 and 2 are queued.
            try await publisher.publish("q/0", "zero", qos: 0)
            try await publisher.publish("q/3", "three", qos: 1)
            try await publisher.publish("q/4", "four", qos: 2)
            let offline = try await broker.waitUntil { $0.sessions["sub"]?.queuedCount == 2 }
            #expect(offline.sessions["sub"]?.inflightCount == 2)

            // On reconnect: unacknowledged ones first, with DUP and their ids, then the queue in order.
            subscriber = try await RawMQTTClient.connect(port: broker.port, clientID: "sub", cleanSession: false,
                                                         expectSessionPresent: true)
            let again1 = try await subscriber.expectPublish()
            let again2 = try await subscriber.expectPublish()
            let third = try await subscriber.expectPublish()
            let fourth = try await subscriber.expectPublish()
            #expect(again1.dup && again1.packetID == first.packetID && again1.payloadString == "one")
            #expect(again2.dup && again2.packetID == second.packetID && again2.payloadString == "two")
            #expect(!third.dup && third.payloadString == "three" && third.qos == 1)
            #expect(!fourth.dup && fourth.payloadString == "four" && fourth.qos == 2)
            try await subscriber.send(RawMQTT.puback(again1.packetID))
            try await subscriber.send(RawMQTT.puback(third.packetID))
            try await subscriber.send(RawMQTT.pubrec(again2.packetID))
            #expect(try await subscriber.next() == .pubrel(again2.packetID))
            try await subscriber.send(RawMQTT.pubrec(fourth.packetID))
            #expect(try await subscriber.next() == .pubrel(fourth.packetID))

            // The PUBREL stage survives a reconnect too: PUBRELs are re-sent in order.
            await subscriber.kill()
            try await broker.waitForDisconnect("sub")
            subscriber = try await RawMQTTClient.connect(port: broker.port, clientID: "sub", cleanSession: false,
                                                         expectSessionPresent: true)
            #expect(try await subscriber.next() == .pubrel(again2.packetID))
            #expect(try await subscriber.next() == .pubrel(fourth.packetID))
            try await subscriber.send(RawMQTT.pubcomp(again2.packetID))
            try await subscriber.send(RawMQTT.pubcomp(fourth.packetID))
            try await subscriber.expectNothingPending()
            let done = try await broker.waitUntil { $0.sessions["sub"]?.inflightCount == 0 }
            #expect(done.sessions["sub"]?.queuedCount == 0)
        }
    }

    @Test("queues are bounded: beyond the limit messages are dropped and counted")
    func boundedQueue() async throws {
        try await withTestBroker(configure: {
            $0.maximumInflightMessages = 2
            $0.maximumQueuedMessages = 3
        }) { broker in
            let subscriber = try await RawMQTTClient.connect(port: broker.port, clientID: "slow")
            try await subscriber.subscribe("load", qos: 1)
            let publisher = try await RawMQTTClient.connect(port: broker.port, clientID: "pub")
            for i in 1...10 { try await publisher.publish("load", "\(i)", qos: 1, packetID: UInt16(i)) }
            let snapshot = try await broker.waitUntil { $0.statistics.messagesDropped == 5 }
            #expect(snapshot.sessions["slow"]?.droppedCount == 5)
            #expect(snapshot.sessions["slow"]?.inflightCount == 2)
            #expect(snapshot.sessions["slow"]?.queuedCount == 3)
            // Acknowledging frees the window and the queue drains in order.
            var payloads: [String] = []
            for _ in 0..<5 {
                let message = try await subscriber.expectPublish()
                payloads.append(message.payloadString)
                try await subscriber.send(RawMQTT.puback(message.packetID))
            }
            #expect(payloads == ["1", "2", "3", "4", "5"])
            try await subscriber.expectNothingPending()
        }
    }

    @Test("QoS 0 backlog is bounded by bytes, not by the QoS 1/2 message limit")
    func byteBoundedQueue() async throws {
        try await withTestBroker(configure: {
            $0.maximumInflightMessages = 1
            $0.maximumQueuedMessages = 1
            $0.maximumQueuedBytes = 100
        }) { broker in
            let subscriber = try await RawMQTTClient.connect(port: broker.port, clientID: "slow")
            try await subscriber.subscribe("b", qos: 1)
            let publisher = try await RawMQTTClient.connect(port: broker.port, clientID: "pub")
            try await publisher.publish("b", "first", qos: 1)   // in flight, not acked yet
            try await publisher.publish("b", "second", qos: 1)  // queued: 7 bytes
            let payload = String(repeating: "x", count: 39)    // 40 bytes with the topic
            // QoS 0 queues behind it (order is kept): 47, 87 bytes fit, the third would make 127.
            for _ in 0..<3 { try await publisher.publish("b", payload, qos: 0) }
            let snapshot = try await broker.waitUntil { $0.statistics.messagesDropped == 1 }
            #expect(snapshot.sessions["slow"]?.queuedCount == 3)
            let first = try await subscriber.expectPublish()
            try await subscriber.send(RawMQTT.puback(first.packetID))
            let second = try await subscriber.expectPublish()
            #expect(second.payloadString == "second")
            try await subscriber.send(RawMQTT.puback(second.packetID))
            #expect(try await subscriber.expectPublish().payloadString == payload)
            #expect(try await subscriber.expectPublish().payloadString == payload)
            try await subscriber.expectNothingPending()
        }
    }

    @Test("the inspection API records received messages with their client")
    func inspection() async throws {
        try await withTestBroker { broker in
            let watcher = try await RawMQTTClient.connect(port: broker.port, clientID: "watcher")
            try await watcher.subscribe("watch/#", qos: 2)
            let publisher = try await RawMQTTClient.connect(port: broker.port, clientID: "pub")
            try await publisher.publish("watch/a", "1", qos: 1, retain: true)
            let messages = try await broker.waitForMessages(on: "watch/a")
            #expect(messages.first?.clientID == "pub")
            #expect(messages.first?.retain == true)
            #expect(messages.first?.payload == Array("1".utf8))
            let clients = await broker.connectedClients()
            #expect(clients.map(\.clientID) == ["pub", "watcher"])
            #expect(clients.last?.subscriptions == ["watch/#": .exactlyOnce])
            #expect(clients.first?.remoteAddress?.hasPrefix("127.0.0.1") == true)
        }
    }
}
