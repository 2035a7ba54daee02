import HouseBroker
import HouseTesting
import Testing

@Suite("Malformed and out-of-order packets close only that connection")
struct MalformedPacketTests {
    static let cases: [(String, [UInt8], Bool)] = [
        // (name, bytes, send CONNECT first)
        ("remaining length over 4 bytes", [0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], true),
        ("reserved packet type 0", [0x00, 0x00], true),
        ("reserved packet type 15", [0xF0, 0x00], true),
        ("reserved packet type 0 before CONNECT", [0x00, 0x00], false),
        ("second CONNECT", RawMQTT.connect(clientID: "again"), true),
        ("PUBLISH before CONNECT", RawMQTT.publish(topic: "a", "b"), false),
        ("SUBSCRIBE before CONNECT", RawMQTT.subscribe([("a", 0)], packetID: 1), false),
        ("topic with NUL", RawMQTT.packet(0x30, RawMQTT.binary([0x61, 0x00, 0x62]) + [0x21]), true),
        ("topic with invalid UTF-8", RawMQTT.packet(0x30, RawMQTT.binary([0x61, 0xC3, 0x28]) + [0x21]), true),
        ("topic with a wildcard", RawMQTT.publish(topic: "a/+", "x"), true),
        ("empty topic", RawMQTT.publish(topic: "", "x"), true),
        ("PUBLISH QoS 3", [0x36, 0x05, 0x00, 0x01, 0x61, 0x00, 0x01], true),
        ("PUBLISH QoS 1 packet id 0", RawMQTT.publish(topic: "a", "x", qos: 1, packetID: 0), true),
        ("PUBLISH truncated topic", [0x30, 0x03, 0x00, 0x05, 0x61], true),
        ("SUBSCRIBE with wrong flags", [0x80, 0x06, 0x00, 0x01, 0x00, 0x01, 0x61, 0x00], true),
        ("SUBSCRIBE without filters", [0x82, 0x02, 0x00, 0x01], true),
        ("SUBSCRIBE requested QoS 3", [0x82, 0x06, 0x00, 0x01, 0x00, 0x01, 0x61, 0x03], true),
        ("UNSUBSCRIBE without filters", [0xA2, 0x02, 0x00, 0x01], true),
        ("PUBREL with wrong flags", [0x60, 0x02, 0x00, 0x01], true),
        ("PINGREQ with a body", [0xC0, 0x01, 0x00], true),
        ("CONNACK from a client", [0x20, 0x02, 0x00, 0x00], true),
        ("CONNECT with the reserved flag", [0x10, 0x0D, 0x00, 0x04] + Array("MQTT".utf8) + [0x04, 0x03, 0x00, 0x3C, 0x00, 0x01, 0x63], false),
        ("CONNECT will QoS 3", [0x10, 0x0D, 0x00, 0x04] + Array("MQTT".utf8) + [0x04, 0x1E, 0x00, 0x3C, 0x00, 0x01, 0x63], false),
        ("CONNECT password without user name", [0x10, 0x0D, 0x00, 0x04] + Array("MQTT".utf8) + [0x04, 0x42, 0x00, 0x3C, 0x00, 0x01, 0x63], false),
        ("CONNECT truncated", [0x10, 0x04, 0x00, 0x04, 0x4D, 0x51], false),
    ]

    @Test("each malformed packet closes the sender; the broker keeps serving others",
          arguments: cases.indices)
    func malformed(index: Int) async throws {
        let (name, bytes, connectFirst) = Self.cases[index]
        try await withTestBroker { broker in
            let bystander = try await RawMQTTClient.connect(port: broker.port, clientID: "bystander")
            try await bystander.subscribe("#")
            let offender: RawMQTTClient
            if connectFirst {
                offender = try await RawMQTTClient.connect(port: broker.port, clientID: "offender",
                                                           will: .init(topic: "will/offender", payload: Array("bye".utf8)))
            } else {
                offender = try await RawMQTTClient.open(port: broker.port)
            }
            try await offender.send(bytes)
            try await offender.expectClosed()
            #expect(await broker.statistics().protocolErrors == 1, "\(name)")
            if connectFirst {
                // A protocol error is not a clean DISCONNECT: the will is published.
                #expect(try await bystander.expectPublish().topic == "will/offender", "\(name)")
            }
            try await bystander.expectNothingPending()
            let fresh = try await RawMQTTClient.connect(port: broker.port, clientID: "fresh")
            try await fresh.publish("after", "ok", qos: 1)
            #expect(try await bystander.expectPublish().payloadString == "ok", "\(name)")
        }
    }

    @Test("a truncated remaining length just waits; closing mid-packet leaves the broker healthy")
    func truncatedRemainingLength() async throws {
        try await withTestBroker { broker in
            let offender = try await RawMQTTClient.connect(port: broker.port, clientID: "offender")
            try await offender.send([0x30, 0xFF, 0xFF])  // continuation bits, more length bytes promised
            try await offender.expectNothingPendingFails()
            await offender.kill()
            try await broker.waitForDisconnect("offender")
            let other = try await RawMQTTClient.connect(port: broker.port, clientID: "other")
            try await other.expectNothingPending()
        }
    }

    @Test("a packet larger than the configured maximum closes the connection")
    func oversized() async throws {
        try await withTestBroker(configure: { $0.maximumPacketSize = 1024 }) { broker in
            let client = try await RawMQTTClient.connect(port: broker.port, clientID: "big")
            try await client.send(RawMQTT.publish(topic: "t", payload: [UInt8](repeating: 1, count: 2000)))
            try await client.expectClosed()
        }
    }

    @Test("a connection that never sends CONNECT is closed after the connect timeout")
    func connectTimeout() async throws {
        try await withTestBroker(configure: { $0.connectTimeout = .milliseconds(200) }) { broker in
            let client = try await RawMQTTClient.open(port: broker.port)
            try await client.expectClosed(timeout: .seconds(5))
        }
    }
}

extension RawMQTTClient {
    /// After a half-sent packet the PINGREQ is swallowed as part of it: no PINGRESP may come back.
    func expectNothingPendingFails() async throws {
        try await send(RawMQTT.pingreq)
        await #expect(throws: RawClientError.self) { try await self.next(timeout: .milliseconds(300)) }
    }
}
