import HouseBroker
import HouseTesting
import Testing

@Suite("CONNECT, CONNACK and sessions")
struct ConnectTests {
    @Test("a client connects and the broker sees it")
    func connects() async throws {
        try await withTestBroker { broker in
            #expect(broker.port > 0)
            let client = try await RawMQTTClient.connect(port: broker.port, clientID: "alpha", keepAlive: 30)
            let info = try await broker.waitForClient("alpha")
            #expect(info.keepAlive == 30)
            #expect(info.cleanSession)
            try await client.send(RawMQTT.pingreq)
            #expect(try await client.next() == .pingresp)
            try await client.disconnect()
            try await broker.waitForDisconnect("alpha")
            #expect(await broker.snapshot().sessions["alpha"] == nil)
        }
    }

    @Test("a protocol level other than MQIsdp 3, MQTT 4 and MQTT 5 gets CONNACK 1 and is closed")
    func unacceptableProtocol() async throws {
        try await withTestBroker { broker in
            for (name, level) in [("MQTT", UInt8(3)), ("MQTT", 6), ("MQIsdp", 4)] {
                let client = try await RawMQTTClient.open(port: broker.port)
                try await client.send(RawMQTT.connect(clientID: "old", protocolName: name, level: level))
                #expect(try await client.next() == .connack(sessionPresent: false, code: 1))
                try await client.expectClosed()
            }
            #expect(await broker.statistics().connectionsRefused == 3)
        }
    }

    /// MQTT 3.1 (`MQIsdp`, level 3), as old clients and devices still speak it: a session like
    /// 3.1.1's, a CONNACK without the session-present flag, and a client identifier it must give.
    @Test("an MQTT 3.1 client connects, subscribes, publishes and resumes its session")
    func mqtt31() async throws {
        try await withTestBroker { broker in
            let sub = try await RawMQTTClient.open(port: broker.port)
            try await sub.send(RawMQTT.connect(clientID: "old-sub", cleanSession: false, protocolName: "MQIsdp", level: 3))
            #expect(try await sub.next() == .connack(sessionPresent: false, code: 0))
            try await sub.send(RawMQTT.subscribe([("old/#", 1)], packetID: 1))
            #expect(try await sub.next() == .suback(1, [1]))
            let pub = try await RawMQTTClient.open(port: broker.port)
            try await pub.send(RawMQTT.connect(clientID: "old-pub", protocolName: "MQIsdp", level: 3))
            #expect(try await pub.next() == .connack(sessionPresent: false, code: 0))
            try await pub.send(RawMQTT.publish(topic: "old/a", "hi", qos: 1, packetID: 7))
            #expect(try await pub.next() == .puback(7))
            guard case .publish(let p) = try await sub.next() else {
                Issue.record("expected the message")
                return
            }
            #expect(p.topic == "old/a" && p.payloadString == "hi" && p.qos == 1)
            try await sub.send(RawMQTT.puback(p.packetID))
            try await sub.disconnect()
            try await broker.waitForDisconnect("old-sub")
            // The session is there again, but 3.1's CONNACK has no flag to say so.
            let again = try await RawMQTTClient.open(port: broker.port)
            try await again.send(RawMQTT.connect(clientID: "old-sub", cleanSession: false, protocolName: "MQIsdp", level: 3))
            #expect(try await again.next() == .connack(sessionPresent: false, code: 0))
            #expect(try await broker.waitForClient("old-sub").subscriptions["old/#"] != nil)
            // No identifier: refused with 2 (identifier rejected).
            let anonymous = try await RawMQTTClient.open(port: broker.port)
            try await anonymous.send(RawMQTT.connect(clientID: "", protocolName: "MQIsdp", level: 3))
            #expect(try await anonymous.next() == .connack(sessionPresent: false, code: 2))
        }
    }

    @Test("a wrong protocol name closes without CONNACK")
    func wrongProtocolName() async throws {
        try await withTestBroker { broker in
            let client = try await RawMQTTClient.open(port: broker.port)
            try await client.send(RawMQTT.connect(clientID: "x", protocolName: "HTTP", level: 4))
            try await client.expectClosed()
        }
    }

    @Test("empty client id: assigned with clean session, rejected (2) without")
    func emptyClientID() async throws {
        try await withTestBroker { broker in
            let client = try await RawMQTTClient.connect(port: broker.port, clientID: "")
            let snapshot = try await broker.waitUntil { $0.connectedClients.count == 1 }
            let assigned = try #require(snapshot.connectedClients.first?.clientID)
            #expect(!assigned.isEmpty)
            let second = try await RawMQTTClient.connect(port: broker.port, clientID: "")
            try await broker.waitUntil { $0.connectedClients.count == 2 }
            _ = (client, second)

            let persistent = try await RawMQTTClient.open(port: broker.port)
            try await persistent.send(RawMQTT.connect(clientID: "", cleanSession: false))
            #expect(try await persistent.next() == .connack(sessionPresent: false, code: 2))
            try await persistent.expectClosed()
        }
    }

    @Test("server unavailable (3) when the connection limit is reached")
    func serverUnavailable() async throws {
        try await withTestBroker(configure: { $0.maximumConnections = 1 }) { broker in
            let first = try await RawMQTTClient.connect(port: broker.port, clientID: "first")
            let second = try await RawMQTTClient.open(port: broker.port)
            try await second.send(RawMQTT.connect(clientID: "second"))
            #expect(try await second.next() == .connack(sessionPresent: false, code: 3))
            try await second.expectClosed()
            try await first.expectNothingPending()
        }
    }

    @Test("refuseConnections answers every return code and can be lifted", arguments: [
        HouseBroker.ConnectReturnCode.unacceptableProtocolVersion, .identifierRejected, .serverUnavailable,
        .badUsernameOrPassword, .notAuthorized,
    ])
    func refuseWithCode(code: HouseBroker.ConnectReturnCode) async throws {
        try await withTestBroker { broker in
            await broker.refuseConnections(with: code)
            let client = try await RawMQTTClient.open(port: broker.port)
            try await client.send(RawMQTT.connect(clientID: "c"))
            #expect(try await client.next() == .connack(sessionPresent: false, code: code.rawValue))
            try await client.expectClosed()
            await broker.refuseConnections(with: nil)
            _ = try await RawMQTTClient.connect(port: broker.port, clientID: "c")
        }
    }

    @Test("a second connection with the same client id takes over; the old one is closed and its will sent")
    func takeover() async throws {
        try await withTestBroker { broker in
            let watcher = try await RawMQTTClient.connect(port: broker.port, clientID: "watcher")
            try await watcher.subscribe("wills/#")
            let old = try await RawMQTTClient.connect(
                port: broker.port, clientID: "dup", will: .init(topic: "wills/dup", payload: Array("gone".utf8)))
            let new = try await RawMQTTClient.connect(port: broker.port, clientID: "dup")
            try await old.expectClosed()
            let will = try await watcher.expectPublish()
            #expect(will.topic == "wills/dup")
            #expect(will.payloadString == "gone")
            try await new.expectNothingPending()
            let info = try await broker.waitForClient("dup")
            #expect(info.isConnected)
        }
    }

    @Test("persistent session: subscriptions survive, session present flag, clean session discards")
    func persistentSession() async throws {
        try await withTestBroker { broker in
            var client = try await RawMQTTClient.connect(port: broker.port, clientID: "p", cleanSession: false,
                                                         expectSessionPresent: false)
            try await client.subscribe("a/b", qos: 1)
            try await client.disconnect()
            #expect(await broker.snapshot().sessions["p"]?.subscriptions == ["a/b": .atLeastOnce])

            client = try await RawMQTTClient.connect(port: broker.port, clientID: "p", cleanSession: false,
                                                     expectSessionPresent: true)
            let publisher = try await RawMQTTClient.connect(port: broker.port, clientID: "pub")
            try await publisher.publish("a/b", "hello", qos: 1)
            let message = try await client.expectPublish()
            #expect(message.payloadString == "hello")
            try await client.send(RawMQTT.puback(message.packetID))
            try await client.disconnect()

            client = try await RawMQTTClient.connect(port: broker.port, clientID: "p", cleanSession: true,
                                                     expectSessionPresent: false)
            try await client.disconnect()
            client = try await RawMQTTClient.connect(port: broker.port, clientID: "p", cleanSession: false,
                                                     expectSessionPresent: false)
            #expect(await broker.snapshot().sessions["p"]?.subscriptions.isEmpty == true)
        }
    }

    @Test("keepalive: silence for 1.5x the keepalive closes the connection and sends the will")
    func keepaliveExpiry() async throws {
        try await withTestBroker { broker in
            let watcher = try await RawMQTTClient.connect(port: broker.port, clientID: "watcher")
            try await watcher.subscribe("status/+")
            // Timed from before the CONNECT is sent: the broker's last read of this client (the
            // CONNECT) comes after it, however late the CONNACK reaches us on a busy machine.
            let clock = ContinuousClock()
            let start = clock.now
            let silent = try await RawMQTTClient.connect(
                port: broker.port, clientID: "silent", keepAlive: 1,
                will: .init(topic: "status/silent", payload: Array("offline".utf8), qos: 1))
            try await silent.expectClosed(timeout: .seconds(5))
            let elapsed = clock.now - start
            #expect(elapsed >= .milliseconds(1400))
            let will = try await watcher.expectPublish()
            #expect(will.topic == "status/silent")
            #expect(will.payloadString == "offline")
            #expect(will.qos == 0)  // min(will QoS 1, subscription QoS 0)
        }
    }

    @Test("clean DISCONNECT discards the will")
    func noWillOnDisconnect() async throws {
        try await withTestBroker { broker in
            let watcher = try await RawMQTTClient.connect(port: broker.port, clientID: "watcher")
            try await watcher.subscribe("status/#")
            let client = try await RawMQTTClient.connect(
                port: broker.port, clientID: "polite", will: .init(topic: "status/polite", payload: Array("x".utf8)))
            try await client.disconnect()
            try await broker.waitForDisconnect("polite")
            try await watcher.expectNothingPending()
            #expect(await broker.receivedMessages().isEmpty)
        }
    }
}
