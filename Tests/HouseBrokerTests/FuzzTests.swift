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

    @Test("the decoder rejects or accepts mutated packets without trapping")
    func decoderMutations() {
        var rng = SeededGenerator(state: 0xC0FFEE)
        var accepted = 0
        var rejected = 0
        for _ in 0..<20_000 {
            var bytes = Self.seeds.randomElement(using: &rng)!
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
                _ = try MQTTPacketDecoder.parse(header: header, body: &body)
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
            for index in 0..<60 {
                let client = index % 2 == 0
                    ? try await RawMQTTClient.connect(port: broker.port, clientID: "f\(index)")
                    : try await RawMQTTClient.open(port: broker.port)
                var bytes = Self.seeds.randomElement(using: &rng)!
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
