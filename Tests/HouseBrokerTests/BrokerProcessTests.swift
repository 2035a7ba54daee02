import Foundation
import HouseTesting
import NIOCore
import Testing

/// `housectl broker` from the release build, as a process: hostile clients push past every bound;
/// after each one a normal client still publishes and receives, and the resident memory grows by
/// no more than the documented bound (docs/BROKER.md, "Limits and memory").
@Suite("housectl broker (release build) under hostile clients")
struct BrokerProcessTests {
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// `HOUSECTL_RELEASE_BINARY`, else `.build/<triple>/release/housectl` beside the debug test bundle.
    static var releaseBinary: String {
        if let path = ProcessInfo.processInfo.environment["HOUSECTL_RELEASE_BINARY"] { return path }
        let debug = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        return debug.deletingLastPathComponent().appendingPathComponent("release/housectl").path
    }
    static var releaseBuilt: Bool { FileManager.default.isExecutableFile(atPath: releaseBinary) }

    /// The totals the broker runs with here; the bound checked is their sum plus `slack`.
    static let total = 8 * 1024 * 1024
    static let slack = 16 * 1024 * 1024

    @Test("every hostile client is refused within the bounds; memory stays within 3 x 8 MiB + 16 MiB of the idle broker",
          .enabled(if: releaseBuilt || isCI), .timeLimit(.minutes(3)))
    func hostileClients() async throws {
        try #require(Self.releaseBuilt, "no release build at \(Self.releaseBinary): run `scripts/release-build.sh --product housectl` (make test does)")
        let broker = try await HousectlBrokerProcess.start(Self.releaseBinary, [
            "broker", "--port", "0", "--max-total-queued-bytes", "8M", "--max-retained-bytes", "8M",
            "--max-total-subscription-bytes", "8M",
        ])
        defer { broker.kill() }
        let port = broker.port

        try await HardeningTests.expectServing(port: port)
        let idle = try #require(broker.memory())

        // 1. Twenty 64 KiB SUBSCRIBEs of 65,535 levels.
        for index in 0..<20 {
            let client = try await RawMQTTClient.connect(port: port, clientID: "flood-\(index)")
            #expect(try await client.subscribe(String(repeating: "/", count: 65_534)) == [0x80])
            await client.kill()
        }
        try await HardeningTests.expectServing(port: port)

        // 2. A filter of 20,000 levels (40 KB) and a PUBLISH to a matching topic.
        let deep = try await RawMQTTClient.connect(port: port, clientID: "deep-0")
        #expect(try await deep.subscribe(String(repeating: "a/", count: 19_999) + "#") == [0x80])
        try await deep.publish(String(repeating: "a/", count: 19_999) + "a", "x", qos: 1)
        try await deep.expectNothingPending()
        await deep.kill()
        try await HardeningTests.expectServing(port: port)

        // 3. Many clients, each as many 200-level subscriptions as it may have: the totals hold.
        var granted = 0
        for index in 0..<10 {
            let client = try await RawMQTTClient.connect(port: port, clientID: "wide-\(index)")
            for batch in 0..<20 {
                let filters = (0..<10).map { (String(repeating: "s/", count: 199) + "\(index)-\(batch)-\($0)", UInt8(0)) }
                granted += try await client.subscribe(filters, packetID: UInt16(batch + 1)).filter { $0 != 0x80 }.count
            }
        }
        #expect(granted > 0 && granted < 2000, "granted \(granted) of 2000")
        try await HardeningTests.expectServing(port: port)

        // 4. Retained messages: 32 MiB offered, 8 MiB kept.
        let retainer = try await RawMQTTClient.connect(port: port, clientID: "retainer")
        let big = String(repeating: "r", count: 128 * 1024)
        for index in 0..<256 {
            try await retainer.publish("retained/\(index)", big, qos: 1, retain: true, packetID: UInt16(index + 1))
        }
        await retainer.kill()
        try await HardeningTests.expectServing(port: port)

        // 5. Offline persistent sessions: 4 x 32 MiB offered, 8 MiB kept in all.
        for index in 0..<4 {
            let away = try await RawMQTTClient.connect(port: port, clientID: "away-\(index)", cleanSession: false)
            #expect(try await away.subscribe("flood/#", qos: 1) == [1])
            try await away.disconnect()
        }
        let flooder = try await RawMQTTClient.connect(port: port, clientID: "flooder")
        let payload = String(repeating: "q", count: 256 * 1024)
        for index in 0..<128 {
            try await flooder.publish("flood/\(index)", payload, qos: 1, packetID: UInt16(index + 1))
        }
        await flooder.kill()
        try await HardeningTests.expectServing(port: port)

        // 6. A wrong acknowledgement closes that connection only.
        let subscriber = try await RawMQTTClient.connect(port: port, clientID: "wrong-ack")
        #expect(try await subscriber.subscribe("ack/t", qos: 1) == [1])
        let publisher = try await RawMQTTClient.connect(port: port, clientID: "ack-publisher")
        try await publisher.publish("ack/t", "m", qos: 1)
        let message = try await subscriber.expectPublish()
        try await subscriber.send(RawMQTT.pubrec(message.packetID))
        try await subscriber.expectClosed()
        try await HardeningTests.expectServing(port: port)

        // 7. A first packet announcing 1 MiB.
        let huge = try await RawMQTTClient.open(port: port)
        // The broker may close while the rest is still being written: a failed write is expected.
        try? await huge.send([0x10] + RawMQTT.remainingLength(1 << 20) + [UInt8](repeating: 0, count: 4096))
        try await huge.expectClosed()
        try await HardeningTests.expectServing(port: port)

        let after = try #require(broker.memory())
        let bound = 3 * Self.total + Self.slack
        print("broker memory: idle \(idle.resident / 1024) KiB, peak \(after.peak / 1024) KiB, now \(after.resident / 1024) KiB; \(granted) of 2000 subscriptions granted")
        #expect(after.peak - idle.resident <= bound,
                "peak resident \(after.peak / 1024) KiB, idle \(idle.resident / 1024) KiB: grew by more than \(bound / 1024) KiB")
        // The log names the refused clients.
        let log = broker.log()
        #expect(log.contains("'deep-0' may not subscribe"), "\(log.suffix(2000))")
        #expect(log.contains("'deep-0' published to a topic of"))
        #expect(log.contains("'retainer': retained message on retained/"))
        #expect(log.contains("closing connection of 'wrong-ack': PUBREC for packet id"))
    }
}
