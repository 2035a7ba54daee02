import Foundation
import HouseMQTT
import Logging
import HouseTesting
import Synchronization

/// Load generation with our own MQTT client (the same client against every broker: fair).
enum MQTTLoad {
    static let clock = ContinuousClock()

    static let quietLogger: Logger = {
        var l = Logger(label: "housectl-bench.mqtt")
        l.logLevel = .warning
        return l
    }()

    /// A connected client speaking `version` (MQTT 3.1.1 unless asked: the rows compare brokers
    /// on the same protocol, and the version never falls back silently).
    static func client(port: Int, name: String, version: MQTTProtocolVersion = .v311) async throws -> MQTTClient {
        var configuration = MQTTConfiguration(
            host: "127.0.0.1", port: port, clientID: "bench-\(name)-\(UInt32.random(in: 0...UInt32.max))",
            offlineQueueCapacity: 200_000)
        configuration.protocolVersion = version
        let c = try MQTTClient(configuration: configuration, logger: quietLogger)
        try await c.connect()
        return c
    }

    /// Round trips, one at a time: `message(i)` is published by `publisher` and the time until
    /// `subscription` yields a message accepted by `arrived(i, message)` is one sample (ms).
    static func latency(publisher: MQTTClient, subscription: MQTTSubscription, count: Int,
                        message: @escaping @Sendable (Int) -> MQTTMessage,
                        arrived: @escaping @Sendable (Int, MQTTMessage) -> Bool) async throws -> Samples {
        let (arrivals, sink) = AsyncStream.makeStream(of: (MQTTMessage, ContinuousClock.Instant).self)
        return try await withThrowingTaskGroup(of: Samples?.self) { group in
            group.addTask {
                for try await m in subscription { sink.yield((m, clock.now)) }
                sink.finish()
                return nil
            }
            group.addTask {
                var samples: [Double] = []
                samples.reserveCapacity(count)
                var it = arrivals.makeAsyncIterator()
                for i in 0..<count {
                    let m = message(i)
                    let t0 = clock.now
                    try await publisher.publish(m)
                    while true {
                        guard let arrival = await it.next() else { throw ChildBroker.StartFailed(description: "subscription ended") }
                        let (got, t) = arrival
                        if arrived(i, got) { samples.append((t - t0).inMilliseconds); break }
                    }
                }
                return Samples(samples)
            }
            defer { group.cancelAll() }
            while let r = try await group.next() {
                if let r { return r }
            }
            throw ChildBroker.StartFailed(description: "latency: no samples")
        }
    }

    /// Publishes `count` messages (window `window` in flight) to `topic` and waits until each of
    /// `subscribers` has received them all, or until nothing arrived for 3 s (loss).
    /// Returns published messages per second (first publish to last delivery) and the loss.
    static func throughput(port: Int, subscribers: Int, qos: MQTTQoS, count: Int, window: Int = 64,
                           version: MQTTProtocolVersion = .v311) async throws -> (rate: Double, lost: Int)
    {
        let topic = "bench/tp/\(UInt32.random(in: 0...UInt32.max))"
        let publisher = try await client(port: port, name: "pub", version: version)
        var subs: [MQTTClient] = []
        var streams: [MQTTSubscription] = []
        for i in 0..<subscribers {
            let c = try await client(port: port, name: "sub\(i)", version: version)
            subs.append(c)
            streams.append(try await c.subscribe(to: topic, qos: qos))
        }
        let counts = Locked([Int](repeating: 0, count: subscribers))
        let last = Locked(clock.now)
        let payload = [UInt8](repeating: 0x61, count: 32)
        let start = clock.now
        let received: Int = try await withThrowingTaskGroup(of: Void.self) { group in
            for (i, s) in streams.enumerated() {
                group.addTask {
                    var n = 0
                    for try await _ in s {
                        n += 1
                        let t = clock.now
                        counts.withLock { $0[i] = n }
                        last.withLock { $0 = t }
                        if n == count { return }
                    }
                }
            }
            try await publish(publisher, topic: topic, payload: payload, qos: qos, count: count, window: window)
            // Wait for the deliveries (the figure uses the last arrival's time, not this poll),
            // giving up after 3 s without progress.
            var seen = -1
            var progressAt = clock.now
            while true {
                let total = counts.withLock { $0.reduce(0, +) }
                if total == count * subscribers { break }
                if total != seen { seen = total; progressAt = clock.now }
                if clock.now - progressAt > .seconds(3) { break }
                try await Task.sleep(for: .milliseconds(5))
            }
            group.cancelAll()
            return counts.withLock { $0.reduce(0, +) }
        }
        for c in subs + [publisher] { await c.disconnect() }
        let elapsed = (last.withLock { $0 } - start).inMilliseconds / 1000
        let delivered = Double(received) / Double(subscribers)
        return (delivered / Swift.max(elapsed, 1e-9), count * subscribers - received)
    }

    /// Publishes `count` messages with at most `window` publishes awaiting their completion.
    static func publish(_ client: MQTTClient, topic: String, payload: [UInt8], qos: MQTTQoS, count: Int, window: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<count {
                if i >= window { try await group.next() }
                group.addTask { try await client.publish(MQTTMessage(topic: topic, payload: payload, qos: qos)) }
            }
            try await group.waitForAll()
        }
    }

    /// Device commands: waits for the retained state, then publishes `count` commands QoS 0 back
    /// to back, alternating from the opposite of that state (so every one is an edge), and counts
    /// the live state messages until all arrived or none came for 5 s. Returns the states seen
    /// and the seconds from the first command to the last state.
    static func commands(publisher: MQTTClient, topic: String, states subscription: MQTTSubscription, count: Int) async throws
        -> (states: Int, seconds: Double)
    {
        let seen = Locked((initial: String?.none, count: 0, last: clock.now))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await m in subscription {
                    let t = clock.now
                    let n = seen.withLock { s -> Int in
                        if m.retain {
                            if s.initial == nil { s.initial = m.string ?? "OFF" }
                            return s.count
                        }
                        s.count += 1
                        s.last = t
                        return s.count
                    }
                    if n == count { return }
                }
            }
            // The retained state (polled: the figure does not depend on this wait).
            let waitStart = clock.now
            var initial = seen.withLock { $0.initial }
            while initial == nil && clock.now - waitStart < .seconds(5) {
                try await Task.sleep(for: .milliseconds(2))
                initial = seen.withLock { $0.initial }
            }
            let first = initial == "ON" ? "OFF" : "ON", second = initial == "ON" ? "ON" : "OFF"
            let on = Array(first.utf8), off = Array(second.utf8)
            let start = clock.now
            for i in 0..<count {
                try await publisher.publish(MQTTMessage(topic: topic, payload: i % 2 == 0 ? on : off, qos: .atMostOnce))
            }
            var previous = -1
            var progressAt = clock.now
            while true {
                let n = seen.withLock { $0.count }
                if n >= count { break }
                if n != previous { previous = n; progressAt = clock.now }
                if clock.now - progressAt > .seconds(5) { break }
                try await Task.sleep(for: .milliseconds(5))
            }
            group.cancelAll()
            let (n, last) = seen.withLock { ($0.count, $0.last) }
            return (n, (last - start).inMilliseconds / 1000)
        }
    }
}
