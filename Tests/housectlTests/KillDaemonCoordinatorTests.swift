import Foundation
import HouseBroker
import HouseBrokerTesting
import HouseCore
import HouseDaemon
import HouseMQTT
import HouseTesting
import Signals
import Synchronization
import Testing

/// Three real `housectl serve` processes (pi-main, pi-bedroom, pi-garage of the example house,
/// every one allowed to coordinate, a 2 s lease) on one broker; the coordinator is killed with
/// SIGKILL again and again (pi-main and pi-bedroom in turn; pi-garage, whose light the requests
/// switch, lives) and started again, while a client switches the garage light on and off in turn
/// with intent requests, each retried under its id until answered, as an automation would.
/// Counted: the requests answered, the light's changes against the requests carried out (one
/// each: none lost, none doubled), the takeover times (kill to the next node's claim), and under
/// `make soak` the routines due every minute, each run exactly once.
@Suite(.serialized) struct KillDaemonCoordinatorTests {
    static let lease: Duration = .seconds(2)

    /// The example house with `coordination:` (and `routines` at the given local times, each
    /// toggling the garden pump, catching up the latest missed run).
    static func makeHouse(in directory: URL, routineTimes: [String]) throws -> String {
        let path = try KillDaemonTests.makeHouse(in: directory)
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text += "\ncoordination: {nodes: [pi-main, pi-bedroom, pi-garage], lease: 2s}\n"
        if !routineTimes.isEmpty {
            text += "routines:\n"
            for (i, time) in routineTimes.enumerated() {
                text += "  - {id: soak-\(i + 1), shortcut: Soak \(i + 1), run_at: \"\(time)\", catch_up: latest, intent: {device: garden-pump, action: toggle}}\n"
            }
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The London wall-clock minutes after now, `HH:MM`, from the next whole minute plus `lead` on.
    static func nextMinutes(_ count: Int, lead: TimeInterval = 40) -> (times: [String], ends: Date) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/London")!
        let start = Date().addingTimeInterval(lead)
        var times: [String] = []
        var last = start
        for i in 0..<count {
            let at = start.addingTimeInterval(Double(i * 60))
            let c = calendar.dateComponents([.hour, .minute], from: at)
            times.append(String(format: "%02d:%02d", c.hour!, c.minute!))
            last = at
        }
        return (times, calendar.date(bySetting: .second, value: 0, of: last)!.addingTimeInterval(60))
    }

    /// What the test's client saw, shared by its tasks.
    final class Seen: Sendable {
        /// The claims as they came, with when they came.
        let heard = Mutex<[(at: ContinuousClock.Instant, claim: CoordinatorClaim)]>([])
        let claimed = ChangeFeed()
        /// The garage light's state changes.
        let flips = Mutex<(last: String?, count: Int)>((nil, 0))
        let counts = Mutex(Requests())
        let answered = Mutex<[String: IntentReply]>([:])
        let replied = ChangeFeed()
        /// Set when the kills are over: the requests stop after the one in hand.
        let stopping = Mutex(false)
        let requestsEnded = Mutex(false)
        let requested = ChangeFeed()
    }

    /// What the requesting client saw.
    struct Requests: Sendable {
        var sent = 0
        var done = 0
        var failed = 0
        var unanswered = 0
        /// The last one, cut off by the end of the test: carried out or not.
        var interrupted = 0
        var retries = 0
    }

    @Test(KillDaemonTests.needsBinary)
    func killingTheCoordinatorAgainAndAgainLosesNoRequestAndDoublesNothing() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("housectl-coord-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let soak = Soak.enabled
        let minutes = soak ? Soak.int("HOUSECTL_SOAK_ROUNDS", 5) : 0
        let schedule = minutes > 0 ? Self.nextMinutes(minutes) : (times: [], ends: Date())
        let config = try Self.makeHouse(in: work, routineTimes: schedule.times)
        let nodes = ["pi-main", "pi-bedroom", "pi-garage"]
        let kills = soak ? 0 : 2  // under soak: until the last routine's minute has passed

        try await withTestBroker(configure: { $0.maximumQueuedMessages = 10_000 }) { broker in
            var daemons: [String: KillDaemonTests.Daemon] = [:]
            func start(_ node: String) throws {
                daemons[node] = try KillDaemonTests.Daemon(
                    config: config, port: broker.port, stateDirectory: work.appendingPathComponent("state-\(node)").path,
                    log: work.appendingPathComponent("\(node).log"), node: node)
            }
            func online(_ node: String) async throws {
                try await broker.waitUntil(timeout: .seconds(30), "\(node) online") { snapshot in
                    snapshot.retained["house/node/\(node)/status"]?.payloadString == "online"
                        && snapshot.sessions["housectl-\(node)"]?.isConnected == true
                }
            }
            do {
                for node in nodes {
                    try start(node)
                    try await online(node)
                }
                let mqtt = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: broker.port))
                try await mqtt.connect()
                let claims = try await mqtt.subscribe(to: "house/coordinator")
                let replies = try await mqtt.subscribe(to: "test/soak/replies")
                let light = try await mqtt.subscribe(to: "house/garage/garage-light/state")
                // The claims as they come, with when they came.
                let seen = Seen()
                let (claimed, replied) = (seen.claimed, seen.replied)

                let result: (takeovers: [Duration], requests: Requests) = try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await m in claims where !m.retain {
                            if let claim = try? CoordinatorClaim.parse(m.payload) { seen.heard.withLock { $0.append((.now, claim)) } }
                            claimed.changed()
                        }
                    }
                    group.addTask {
                        for try await m in replies {
                            guard let r = try? JSONDecoder().decode(IntentReply.self, from: Data(m.payload)) else { continue }
                            seen.answered.withLock { $0[r.id] = r }
                            replied.changed()
                        }
                    }
                    group.addTask {
                        for try await m in light {
                            guard let s = m.string else { continue }
                            seen.flips.withLock { f in
                                if let last = f.last, last != s { f.count += 1 }
                                f.last = s
                            }
                        }
                    }
                    // The requests: one at a time, each retried under its id every 3 s for 40 s,
                    // until the kills are over.
                    group.addTask {
                        var i = 0
                        while !Task.isCancelled && !seen.stopping.withLock({ $0 }) {
                            i += 1
                            let id = "soak-\(i)"
                            // On and off in turn: each request carried out switches the light once, a
                            // request carried out twice (late, after the next one) once more.
                            let text = i % 2 == 1 ? "turn on the garage light" : "turn off the garage light"
                            let payload = #"{"id":"\#(id)","text":"\#(text)","reply_to":"test/soak/replies"}"#
                            seen.counts.withLock { $0.sent += 1 }
                            var reply: IntentReply? = nil
                            for attempt in 0..<14 where reply == nil && !Task.isCancelled {
                                if attempt > 0 { seen.counts.withLock { $0.retries += 1 } }
                                try await mqtt.publish(to: "house/intent/request", payload: payload, qos: .atLeastOnce)
                                reply = await withTimeLimit(.seconds(3)) {
                                    await replied.watch { wake in
                                        while !Task.isCancelled {
                                            if let r = seen.answered.withLock({ $0[id] }) { return r }
                                            await wake.wait()
                                        }
                                        return nil
                                    }
                                } ?? nil
                            }
                            seen.counts.withLock { c in
                                switch reply?.status {
                                case .done?: c.done += 1
                                case nil where Task.isCancelled: c.interrupted += 1
                                case nil: c.unanswered += 1
                                default: c.failed += 1
                                }
                            }
                        }
                        seen.requestsEnded.withLock { $0 = true }
                        seen.requested.changed()
                    }

                    // The kills: the coordinator, every ~8 s, then started again a few seconds later.
                    var takeovers: [Duration] = []
                    var round = 0
                    while soak ? Date() < schedule.ends.addingTimeInterval(10) : round < kills {
                        round += 1
                        try await Task.sleep(for: .seconds(soak ? 8 : 3))
                        guard let current = seen.heard.withLock({ $0.last?.claim }), current.node != "pi-garage",
                              let daemon = daemons[current.node.rawValue] else { continue }
                        let killedAt = ContinuousClock.now
                        await daemon.kill()
                        let next = try await withTimeout(.seconds(30), "a takeover after \(current.node) was killed") {
                            await claimed.watch { wake in
                                while true {
                                    if let found = seen.heard.withLock({ $0.first { $0.at > killedAt && $0.claim.term > current.term && $0.claim.renewal == 0 } }) {
                                        return found
                                    }
                                    await wake.wait()
                                }
                            }
                        }
                        takeovers.append(killedAt.duration(to: next.at))
                        try await Task.sleep(for: .seconds(2))
                        try start(current.node.rawValue)
                        try await online(current.node.rawValue)
                    }
                    // The last request finishes (answered, or given up after its retries), its
                    // state reaches the test's client, then the streams stop.
                    seen.stopping.withLock { $0 = true }
                    try await withTimeout(.seconds(60), "the last request") {
                        await seen.requested.watch { wake in
                            while !seen.requestsEnded.withLock({ $0 }) { await wake.wait() }
                        }
                    }
                    try await broker.waitUntil(timeout: .seconds(10), "the light's last state") { snapshot in
                        snapshot.retained["house/garage/garage-light/state"]?.payloadString == seen.flips.withLock { $0.last }
                    }
                    group.cancelAll()
                    return (takeovers, seen.counts.withLock { $0 })
                }
                let requests = result.requests
                let flipped = seen.flips.withLock { $0.count }
                // Every request but the first switched the light (the first may find it off already).
                let doubled = max(0, flipped - requests.done - requests.interrupted)
                let lost = max(0, requests.done - 1 - flipped)
                #expect(result.takeovers.count >= (soak ? 1 : kills))
                #expect(doubled == 0, "requests carried out twice: \(doubled)")
                #expect(lost == 0, "requests answered done that switched nothing: \(lost)")
                #expect(requests.unanswered == 0, "requests never answered after 40 s of retries: \(requests.unanswered)")
                for takeover in result.takeovers {
                    #expect(takeover < Self.lease * 4, "a takeover took \(takeover)")
                }
                await mqtt.disconnect()
                for daemon in daemons.values { await daemon.kill() }

                // Each routine run exactly once across the three nodes' databases.
                var runs: [RoutineID: Int] = [:]
                for node in nodes {
                    let store = try StateStore(path: work.appendingPathComponent("state-\(node)/housectl.sqlite").path)
                    for record in try store.routineRuns() where record.done { runs[record.routineID, default: 0] += 1 }
                    try store.close()
                }
                for i in 1...max(1, minutes) where minutes > 0 {
                    #expect(runs[RoutineID("soak-\(i)")] == 1, "routine soak-\(i) ran \(runs[RoutineID("soak-\(i)")] ?? 0) times")
                }
                let sorted = result.takeovers.sorted()
                func ms(_ d: Duration) -> String { String(format: "%.0f ms", Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15) }
                let p50 = sorted.isEmpty ? "-" : ms(sorted[sorted.count / 2])
                let p99 = sorted.isEmpty ? "-" : ms(sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)])
                let summary = "coordinator SIGKILL x\(sorted.count) (lease 2s): takeover p50 \(p50), p99 \(p99), max \(sorted.last.map(ms) ?? "-"); requests sent \(requests.sent), answered done \(requests.done), failed \(requests.failed), never answered \(requests.unanswered), cut off by the end \(requests.interrupted), retried \(requests.retries) times; light changes \(flipped), lost \(lost), doubled actuations \(doubled); routine runs \(minutes == 0 ? "none due" : (1...minutes).map { "soak-\($0): \(runs[RoutineID("soak-\($0)")] ?? 0)" }.joined(separator: ", "))"
                print((soak ? "SOAK " : "") + summary)
            } catch {
                for (node, daemon) in daemons {
                    await daemon.kill()
                    Issue.record("\(node) output:\n\(daemon.output.suffix(3000))")
                }
                throw error
            }
        }
    }
}
