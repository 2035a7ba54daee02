@testable import HouseBroker
import HouseTesting
import NIOCore
import Testing

/// A small deterministic generator (SplitMix64), so failures reproduce.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Fuzzing: garbage never crashes or stalls the broker")
struct FuzzTests {
    static let seeds: [[UInt8]] = [
        RawMQTT.connect(clientID: "c", will: .init(topic: "w", payload: [1, 2], qos: 1, retain: true), username: "u", password: "p"),
        RawMQTT.publish(topic: "a/b", "payload", qos: 2, retain: true, packetID: 5),
        RawMQTT.subscribe([("a/+", 1), ("#", 2)], packetID: 3),
        RawMQTT.unsubscribe(["a/+", "b"], packetID: 4),
        RawMQTT.pubrel(9),
    ]

    /// MQTT 5 packets with properties of every kind, parsed as an MQTT 5 connection would.
    static let seeds5: [[UInt8]] = {
        var connect = Props5()
        connect.sessionExpiry = 60
        connect.receiveMaximum = 5
        connect.topicAliasMaximum = 3
        connect.userProperties = [.init("k", "v")]
        var will = Props5()
        will.willDelay = 5
        will.payloadFormat = 1
        will.correlationData = [1, 2]
        var publish = Props5()
        publish.topicAlias = 2
        publish.messageExpiry = 9
        publish.contentType = "text/plain"
        publish.responseTopic = "r/t"
        publish.userProperties = [.init("a", "b"), .init("a", "c")]
        var subscribe = Props5()
        subscribe.subscriptionIdentifiers = [300]
        var disconnect = Props5()
        disconnect.sessionExpiry = 0
        disconnect.reasonString = "bye"
        return [
            RawMQTT5.connect(clientID: "c", properties: connect,
                             will: .init(topic: "w", payload: [1], qos: 1, properties: will), username: "u", password: "p"),
            RawMQTT5.publish(topic: "a/b", payload: Array("payload".utf8), qos: 2, retain: true, packetID: 5, properties: publish),
            RawMQTT5.subscribe([("a/+", RawMQTT5.options(qos: 1, noLocal: true, retainHandling: 1)), ("$share/g/#", 2)],
                               packetID: 3, properties: subscribe),
            RawMQTT5.unsubscribe(["a/+", "b"], packetID: 4),
            RawMQTT5.ack(0x50, 9, code: 0x87),
            RawMQTT5.disconnect(code: 0x04, properties: disconnect),
        ]
    }()

    @Test("the decoder rejects or accepts mutated packets without trapping", arguments: [MQTTProtocolVersion.v311, .v5])
    func decoderMutations(version: MQTTProtocolVersion) {
        var rng = SeededGenerator(state: 0xC0FFEE)
        var accepted = 0
        var rejected = 0
        let seeds = version == .v5 ? Self.seeds5 : Self.seeds
        for _ in 0..<20_000 {
            var bytes = seeds.randomElement(using: &rng)!
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[Int.random(in: 0..<bytes.count, using: &rng)] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
                case 1: if bytes.count > 2 { bytes.removeLast(Int.random(in: 1..<bytes.count - 1, using: &rng)) }
                default: bytes.append(UInt8.random(in: 0...255, using: &rng))
                }
            }
            let buffer = ByteBuffer(bytes: bytes)
            do {
                guard let (header, remaining, headerLength) = try MQTTPacketDecoder.peekFixedHeader(buffer),
                      buffer.readableBytes >= headerLength + remaining else { continue }
                var body = buffer.getSlice(at: headerLength, length: remaining)!
                _ = try MQTTPacketDecoder.parse(header: header, body: &body, version: version)
                accepted += 1
            } catch {
                rejected += 1
            }
        }
        #expect(accepted > 100)
        #expect(rejected > 100)
    }

    @Test("random bytes on many connections leave the broker serving")
    func garbageOnTheWire() async throws {
        try await withTestBroker { broker in
            var rng = SeededGenerator(state: 42)
            var clients: [RawMQTTClient] = []
            for index in 0..<90 {
                // A third each: garbage before CONNECT, after a 3.1.1 CONNECT, after an MQTT 5 one.
                let client: RawMQTTClient
                switch index % 3 {
                case 0: client = try await RawMQTTClient.connect(port: broker.port, clientID: "f\(index)")
                case 1: client = try await MQTT5Client.connect(port: broker.port, clientID: "f\(index)").0.raw
                default: client = try await RawMQTTClient.open(port: broker.port)
                }
                var bytes = (index % 3 == 1 ? Self.seeds5 : Self.seeds).randomElement(using: &rng)!
                bytes += (0..<Int.random(in: 1...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                try? await client.send(bytes)
                clients.append(client)
            }
            let healthy = try await RawMQTTClient.connect(port: broker.port, clientID: "healthy")
            try await healthy.subscribe("ok")
            let publisher = try await RawMQTTClient.connect(port: broker.port, clientID: "publisher")
            try await publisher.publish("ok", "still here", qos: 1, packetID: 2)
            #expect(try await healthy.expectPublish().payloadString == "still here")
            for client in clients { await client.kill() }
            try await broker.waitUntil { $0.connectedClients.map(\.clientID) == ["healthy", "publisher"] }
        }
    }
}
