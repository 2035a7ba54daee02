import Foundation
import HouseDaemon
import HouseGPIO
import HouseMQTT
import HouseTesting
import Logging
import Synchronization

/// Rows 1 and 2: the daemon in-process (system clock, simulated chip) on a mosquitto started by
/// the bench, against an echo client and bare mosquitto hops in the same run. Row 1's latencies
/// are information; row 2's throughput against the echo client has the goal (and row 7, the
/// commits during row 2's load).
enum ControllerBench {
    static let device: DeviceID = "kitchen-light"
    static let setTopic = "house/kitchen/kitchen-light/set"
    static let stateTopic = "house/kitchen/kitchen-light/state"

    struct Figures {
        var ourP50: [Double] = [], ourP99: [Double] = [], bareP50: [Double] = [], bareP99: [Double] = []
        var echoP50: [Double] = [], echoP99: [Double] = []
        var ourRate: [Double] = [], peerRate: [Double] = [], echoRate: [Double] = []
        /// The echo client that also publishes a record per command, as the controller does (information).
        var recordingEchoRate: [Double] = []
        /// The size of the controller's event for one `set` (bytes): the echo client's record.
        var eventSize = 0
        /// CPU per command (microseconds) of this process and mosquitto together, in the throughput rounds.
        var ourCPU: [Double] = [], echoCPU: [Double] = []
        var lost: Int = 0
        /// The state store's commits during the throughput rounds, and the commands sent in them.
        var commits = 0, loadCommands = 0
        /// The command bus's jobs in the same rounds (a command and, when a rule watches its
        /// device, its relay edge).
        var busJobs = 0
    }

    static func run(rounds: Int, samples: Int, commands: Int, root: String) async throws -> [BenchRow] {
        let mosquitto = try await Brokers.mosquitto()
        defer { mosquitto.kill() }
        let config = try ConfigurationLoader().load(path: root + "/config/house.yaml")
        let chip = SimulatedChip(clock: ContinuousClock())
        let directory = NSTemporaryDirectory() + "housectl-bench-\(UUID().uuidString)"
        var logger = Logger(label: "housectl-bench")
        logger.logLevel = .warning
        let settings = ControllerSettings(
            configuration: config, clock: SystemWallClock(), node: "pi-main", stateDirectory: directory, chip: chip,
            brokerOverride: (host: "127.0.0.1", port: mosquitto.port), clientID: "housectl-bench-daemon",
            phrases: try PhraseSet.load(contentsOf: URL(fileURLWithPath: root + "/config/phrases.yaml")),
            routines: false, logger: logger)
        let controller = try await HouseController.build(settings)
        guard let line = controller.relayLayout?.channels.first(where: { $0.device == device })?.line else {
            throw ChildBroker.StartFailed(description: "\(device) is not a relay of pi-main in config/house.yaml")
        }
        var figures = Figures()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await controller.run(signals: []) }
            do {
                try await withTimeout(.seconds(20), "the controller to be ready") { await controller.waitUntilReady() }
                for round in 0..<rounds {
                    // Alternate which side goes first.
                    if round % 2 == 0 {
                        try await latencyRound(port: mosquitto.port, samples: samples, into: &figures)
                        try await echoLatencyRound(port: mosquitto.port, samples: samples, into: &figures)
                    } else {
                        try await echoLatencyRound(port: mosquitto.port, samples: samples, into: &figures)
                        try await bareLatencyRound(port: mosquitto.port, samples: samples, into: &figures)
                        try await ourLatencyRound(port: mosquitto.port, samples: samples, into: &figures)
                    }
                    progress("controller latency round \(round + 1)/\(rounds)")
                }
                let record = try await eventSize(port: mosquitto.port)
                figures.eventSize = record
                for round in 0..<rounds {
                    let commitsBefore = controller.store.statistics.commits, jobsBefore = controller.busJobs
                    defer {
                        figures.commits += controller.store.statistics.commits - commitsBefore
                        figures.busJobs += controller.busJobs - jobsBefore
                        figures.loadCommands += commands
                    }
                    let peer = try await MQTTLoad.throughput(port: mosquitto.port, subscribers: 1, qos: .atMostOnce, count: commands * 4, window: 1)
                    figures.peerRate.append(peer.rate)
                    let (echo, echoCPU) = try await CPUTime.spent(alsoBy: [mosquitto.pid]) {
                        try await echoThroughput(port: mosquitto.port, count: commands)
                    }
                    figures.echoRate.append(echo)
                    figures.recordingEchoRate.append(try await echoThroughput(port: mosquitto.port, count: commands, record: record))
                    let echoMicroseconds = CPUTime.microseconds(echoCPU, per: commands)
                    figures.echoCPU.append(echoMicroseconds)
                    let (ours, ourCPU) = try await CPUTime.spent(alsoBy: [mosquitto.pid]) {
                        try await commandThroughput(port: mosquitto.port, chip: chip, line: line, count: commands)
                    }
                    figures.ourRate.append(ours.rate)
                    let ourMicroseconds = CPUTime.microseconds(ourCPU, per: commands)
                    figures.ourCPU.append(ourMicroseconds)
                    figures.lost += ours.lost
                    progress("controller throughput round \(round + 1)/\(rounds): \(Int(ours.rate))/s vs echo client \(Int(echo))/s, mosquitto \(Int(peer.rate))/s; CPU per command \(Int(ourMicroseconds)) vs \(Int(echoMicroseconds)) us"
                             + (ours.lost > 0 ? ", \(ours.lost) lost (\(ours.edges) edges, \(ours.states) states)" : ""))
                }
            } catch {
                await controller.shutdown()
                try? await group.waitForAll()
                throw error
            }
            await controller.shutdown()
            try await group.waitForAll()
        }
        try? FileManager.default.removeItem(atPath: directory)

        let p50 = Spread(figures.ourP50), p99 = Spread(figures.ourP99)
        let b50 = Spread(figures.bareP50), b99 = Spread(figures.bareP99)
        let e50 = Spread(figures.echoP50), e99 = Spread(figures.echoP99)
        let rate = Spread(figures.ourRate), peerRate = Spread(figures.peerRate), echoRate = Spread(figures.echoRate)
        let recordingEchoRate = Spread(figures.recordingEchoRate)
        let p50Ratio = p50.median / e50.median, p99Ratio = p99.median / e99.median
        let rateRatio = rate.median / echoRate.median
        let commitsPerThousand = Double(figures.commits) * 1000 / Double(max(figures.loadCommands, 1))
        return [
            BenchRow(name: "1. controller set->state p50 (ms)", ours: p50.text(3), peer: e50.text(3) + " echo client",
                     ratio: String(format: "%.2fx", p50Ratio), goal: "- (info)", met: "-"),
            BenchRow(name: "1. controller set->state p99 (ms)", ours: p99.text(3), peer: e99.text(3) + " echo client",
                     ratio: String(format: "%.2fx", p99Ratio), goal: "- (info)", met: "-",
                     note: "1. (information: the machine's wake-ups move these; row 9 counts a command's cost) "
                         + "\(samples) sequential samples per round (QoS 1, ON/OFF alternating). \"echo client\": a plain MQTT client "
                         + "that republishes what it gets (retained, QoS 1), two hops like set -> daemon -> state: the floor of any "
                         + "controller on this path. \"bare hop\" (information): publish -> subscriber, one hop."),
            BenchRow(name: "1. controller set->state p50 (ms)", ours: p50.text(3), peer: b50.text(3) + " bare hop",
                     ratio: String(format: "%.2fx", p50.median / b50.median), goal: "- (info)", met: "-"),
            BenchRow(name: "1. controller set->state p99 (ms)", ours: p99.text(3), peer: b99.text(3) + " bare hop",
                     ratio: String(format: "%.2fx", p99.median / b99.median), goal: "- (info)", met: "-"),
            BenchRow(name: "2. command throughput (cmd/s)", ours: rate.text(0), peer: echoRate.text(0) + " echo client",
                     ratio: String(format: "%.2fx", rateRatio), goal: ">= 0.8x",
                     met: rateRatio >= 0.8 && figures.lost == 0 ? "yes" : "NO",
                     note: "2. \(commands) ON/OFF commands per round, QoS 0 back to back, rate until the last state; the echo client "
                         + "the same way (it republishes each command as a retained QoS 1 state); lost (commands without both an edge "
                         + "and a state): \(figures.lost); CPU per command (this process and mosquitto): ours \(Spread(figures.ourCPU).text(0)) us, "
                         + "echo client \(Spread(figures.echoCPU).text(0)) us"),
            BenchRow(name: "2. command throughput (cmd/s)", ours: rate.text(0), peer: recordingEchoRate.text(0) + " echo + record",
                     ratio: String(format: "%.2fx", rate.median / recordingEchoRate.median), goal: "- (info)", met: "-",
                     note: "2. \"echo + record\" (information): the same echo client publishing also a \(figures.eventSize)-byte QoS 1 record per "
                         + "command on another topic, the messages the controller publishes (its state and its event): what is left "
                         + "of the ratio is the controller's own work"),
            BenchRow(name: "2. command throughput (cmd/s)", ours: rate.text(0), peer: peerRate.text(0) + " mosq QoS0 1->1",
                     ratio: String(format: "%.2fx", rate.median / peerRate.median), goal: "- (info)", met: "-"),
            BenchRow(name: "7. SQLite commits per 1,000 commands", ours: String(format: "%.1f", commitsPerThousand),
                     peer: "-", ratio: "-", goal: "<= 20", met: commitsPerThousand <= 20 ? "yes" : "NO",
                     note: "7. the state store's commits during row 2's load (\(figures.commits) for \(figures.loadCommands) commands, which made \(figures.busJobs) jobs of the command bus); WAL with synchronous = NORMAL syncs only at checkpoints, so fsyncs are fewer still"),
        ]
    }

    /// The size of the record the controller publishes on `house/events` for one of the kitchen
    /// light's `set`s (bytes), taken from the controller on the broker at `port`.
    private static func eventSize(port: Int) async throws -> Int {
        let pub = try await MQTTLoad.client(port: port, name: "eventset")
        let sub = try await MQTTLoad.client(port: port, name: "events")
        let events = try await sub.subscribe(to: "house/events", qos: .atLeastOnce)
        try await pub.publish(MQTTMessage(topic: setTopic, string: "ON", qos: .atLeastOnce))
        let event = try await events.next("the controller's event for a set")
        for c in [pub, sub] { await c.disconnect() }
        return event.payload.count
    }

    /// Row 2's peer: `count` ON/OFF messages QoS 0 back to back to an echo client that republishes
    /// each as a retained QoS 1 state, and with `record` also publishes that many bytes at QoS 1
    /// on another topic (the controller's event); the rate until the last state arrived (commands
    /// per second).
    private static func echoThroughput(port: Int, count: Int, record: Int? = nil) async throws -> Double {
        let threads = CPUTime.threads(of: "self")
        let tag = UInt32.random(in: 0...UInt32.max)
        let inTopic = "bench/echo/\(tag)/set", outTopic = "bench/echo/\(tag)/state"
        let echo = try await MQTTLoad.client(port: port, name: "echo")
        let echoIn = try await echo.subscribe(to: inTopic, qos: .atMostOnce)
        try await echo.publish(MQTTMessage(topic: outTopic, string: "OFF", qos: .atLeastOnce, retain: true))
        let pub = try await MQTTLoad.client(port: port, name: "echocmd")
        let sub = try await MQTTLoad.client(port: port, name: "echostate")
        let states = try await sub.subscribe(to: outTopic, qos: .atLeastOnce)
        let r = try await withThrowingTaskGroup(of: (states: Int, seconds: Double)?.self) { group in
            group.addTask {
                let payload = record.map { [UInt8](repeating: UInt8(ascii: "x"), count: $0) }
                for try await m in echoIn {
                    try echo.send(MQTTMessage(topic: outTopic, payload: m.payload, qos: .atLeastOnce, retain: true))
                    if let payload { try echo.send(MQTTMessage(topic: "bench/echo/\(tag)/events", payload: payload, qos: .atLeastOnce)) }
                }
                return nil
            }
            group.addTask { try await MQTTLoad.commands(publisher: pub, topic: inTopic, states: states, count: count) }
            defer { group.cancelAll() }
            while let r = try await group.next() {
                if let r { return r }
            }
            return (0, 1)
        }
        CPUTime.reportThreads(since: threads, commands: count, label: record == nil ? "echo client" : "echo + record")
        try await echo.publish(MQTTMessage(topic: outTopic, payload: [], qos: .atLeastOnce, retain: true))
        for c in [pub, sub, echo] { await c.disconnect() }
        return Double(r.states) / max(r.seconds, 1e-9)
    }

    private static func latencyRound(port: Int, samples: Int, into f: inout Figures) async throws {
        try await ourLatencyRound(port: port, samples: samples, into: &f)
        try await bareLatencyRound(port: port, samples: samples, into: &f)
    }

    /// The floor of any MQTT controller: a plain client that republishes every message it gets
    /// (two hops, like set -> daemon -> state).
    private static func echoLatencyRound(port: Int, samples: Int, into f: inout Figures) async throws {
        let tag = UInt32.random(in: 0...UInt32.max)
        let inTopic = "bench/echo/\(tag)/in", outTopic = "bench/echo/\(tag)/out"
        let echo = try await MQTTLoad.client(port: port, name: "echo")
        let echoIn = try await echo.subscribe(to: inTopic, qos: .atLeastOnce)
        let pub = try await MQTTLoad.client(port: port, name: "echopub")
        let sub = try await MQTTLoad.client(port: port, name: "echosub")
        let subscription = try await sub.subscribe(to: outTopic, qos: .atLeastOnce)
        let warmup = 5
        let s = try await withThrowingTaskGroup(of: Samples?.self) { group in
            group.addTask {
                for try await m in echoIn {
                    // As the daemon publishes a state: QoS 1, retained, the PUBACK not awaited in line.
                    try echo.send(MQTTMessage(topic: outTopic, payload: m.payload, qos: .atLeastOnce, retain: true))
                }
                return nil
            }
            group.addTask {
                try await withTimeout(.seconds(120), "echo latency samples") {
                    try await MQTTLoad.latency(
                        publisher: pub, subscription: subscription, count: samples + warmup,
                        message: { MQTTMessage(topic: inTopic, string: String($0), qos: .atLeastOnce) },
                        arrived: { i, m in m.string == String(i) })
                }
            }
            defer { group.cancelAll() }
            while let r = try await group.next() {
                if let r { return r }
            }
            return Samples([])
        }
        let kept = Samples(Array(s.values.dropFirst(warmup)))
        reportOutliers(kept, label: "echo client")
        f.echoP50.append(kept.median)
        f.echoP99.append(kept.percentile(99))
        for c in [pub, sub, echo] { await c.disconnect() }
    }

    /// `set` ON/OFF alternating (QoS 1) until the retained state with that value arrives.
    private static func ourLatencyRound(port: Int, samples: Int, into f: inout Figures) async throws {
        let kept = try await setToState(port: port, samples: samples)
        reportOutliers(kept, label: "controller")
        f.ourP50.append(kept.median)
        f.ourP99.append(kept.percentile(99))
    }

    /// The kitchen light's `set` ON/OFF alternating (QoS 1), each until the retained state with
    /// that value arrives, on the broker at `port`: `samples` after 5 warm-up ones (ms).
    static func setToState(port: Int, samples: Int) async throws -> Samples {
        let pub = try await MQTTLoad.client(port: port, name: "set")
        let sub = try await MQTTLoad.client(port: port, name: "state")
        let subscription = try await sub.subscribe(to: stateTopic, qos: .atLeastOnce)
        let warmup = 5
        let s = try await withTimeout(.seconds(120), "controller latency samples") {
            try await MQTTLoad.latency(
                publisher: pub, subscription: subscription, count: samples + warmup,
                message: { MQTTMessage(topic: setTopic, string: $0 % 2 == 0 ? "ON" : "OFF", qos: .atLeastOnce) },
                arrived: { i, m in m.string == (i % 2 == 0 ? "ON" : "OFF") })
        }
        await pub.disconnect()
        await sub.disconnect()
        return Samples(Array(s.values.dropFirst(warmup)))
    }

    /// With `BENCH_OUTLIERS` set: which samples of a round took more than twice its median, in
    /// order ("index:ms"), to match the tail with what else ran then (a commit every so many
    /// commands shows as a period).
    private static func reportOutliers(_ samples: Samples, label: String) {
        guard ProcessInfo.processInfo.environment["BENCH_OUTLIERS"] != nil else { return }
        let limit = samples.median * 2
        let slow = samples.values.enumerated().filter { $0.element > limit }
            .map { "\($0.offset):" + String(format: "%.2f", $0.element) }
        progress("\(label) latency, samples above \(String(format: "%.2f", limit)) ms (2x p50): \(slow.count): \(slow.joined(separator: " "))")
    }

    /// The bare hop: publish (QoS 1) to a subscriber (QoS 1) through the same mosquitto.
    private static func bareLatencyRound(port: Int, samples: Int, into f: inout Figures) async throws {
        let h = try await hop(port: port, samples: samples, qos: .atLeastOnce)
        f.bareP50.append(h.median)
        f.bareP99.append(h.percentile(99))
    }

    /// One-at-a-time publish-to-subscriber samples (ms) through the broker on `port`.
    static func hop(port: Int, samples: Int, qos: MQTTQoS, version: MQTTProtocolVersion = .v311) async throws -> Samples {
        let topic = "bench/hop/\(UInt32.random(in: 0...UInt32.max))"
        let pub = try await MQTTLoad.client(port: port, name: "hoppub", version: version)
        let sub = try await MQTTLoad.client(port: port, name: "hopsub", version: version)
        let subscription = try await sub.subscribe(to: topic, qos: qos)
        let warmup = 5
        let s = try await withTimeout(.seconds(120), "hop latency samples") {
            try await MQTTLoad.latency(
                publisher: pub, subscription: subscription, count: samples + warmup,
                message: { MQTTMessage(topic: topic, string: String($0), qos: qos) },
                arrived: { i, m in m.string == String(i) })
        }
        await pub.disconnect()
        await sub.disconnect()
        return Samples(Array(s.values.dropFirst(warmup)))
    }

    /// `count` ON/OFF commands, QoS 0 back to back (in order); the rate until the last state arrived.
    private static func commandThroughput(port: Int, chip: SimulatedChip, line: Int, count: Int)
        async throws -> (rate: Double, lost: Int, edges: Int, states: Int)
    {
        let threads = CPUTime.threads(of: "self")
        let pub = try await MQTTLoad.client(port: port, name: "cmd")
        let sub = try await MQTTLoad.client(port: port, name: "cmdstate")
        let subscription = try await sub.subscribe(to: stateTopic, qos: .atLeastOnce)
        let edgesBefore = chip.edges.filter { $0.line == line && $0.kind == .set }.count
        let r = try await MQTTLoad.commands(publisher: pub, topic: setTopic, states: subscription, count: count)
        let edges = chip.edges.filter { $0.line == line && $0.kind == .set }.count - edgesBefore
        CPUTime.reportThreads(since: threads, commands: count, label: "controller")
        await pub.disconnect()
        await sub.disconnect()
        let done = min(r.states, edges)
        return (Double(done) / max(r.seconds, 1e-9), count - done, edges, r.states)
    }
}

/// `body`'s result, or nil when `timeout` passed first.
func withTimeoutOrNil<T: Sendable>(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
    do {
        return try await withTimeout(timeout, "progress", body)
    } catch is TimeoutError {
        return nil
    }
}

/// A progress line on stderr (the table goes to stdout).
func progress(_ s: String) {
    FileHandle.standardError.write(Data("[bench \(String(format: "%6.1f", BenchClock.elapsed))s] \(s)\n".utf8))
}

enum BenchClock {
    static let start = Date()
    static var elapsed: Double { Date().timeIntervalSince(start) }
}
