import Foundation
import HouseDaemon
import HouseMQTT
import HouseTesting
import Signals
import Synchronization
import Testing

/// The real `housectl serve` on a real mosquitto, stopped while the broker goes away: the
/// process exits within its shutdown budget (5 s) whatever the broker does, with the state
/// committed and the relays left per their shutdown policy.
///
/// The house is the example one with `kitchen-light` set to `shutdown: off`; the
/// `living-ceiling-light` keeps the default (`leave`). Both are switched on just before the stop.
@Suite(.serialized, .enabled(if: MosquittoBroker.shouldRun, "mosquitto not installed: skipping real-broker tests (set CI=true to fail instead)"),
       KillDaemonTests.needsBinary)
struct ShutdownBoundTests {
    /// Waits for the exit at most this long: twice the budget (a bound against hangs, not a
    /// measure of speed).
    static let exitWait: Duration = .seconds(10)

    @Test
    func sigtermAsTheBrokerDiesExitsWithTheStateCommittedAndTheLinesPerPolicy() async throws {
        try await withStoppingDaemon { broker, daemon, state in
            // The broker stops answering at the moment of SIGTERM and dies (SIGKILL): whatever
            // the controller sent it last (the `offline` status) is never acknowledged, and the
            // connection is lost before or during the MQTT step of the shutdown.
            broker.freeze()
            daemon.signal(SIGTERM)
            await broker.kill()
            let status = try await daemon.exit(within: Self.exitWait)
            // 0 for a graceful stop; on a machine so busy that a step was still going after
            // 4.5 s, the guard's exit (state committed and lines released all the same).
            #expect([0, ShutdownDeadline.forcedExitStatus].contains(status), "\(daemon.output.suffix(3000))")
            try Self.expectStateAfterStop(state, daemon)
        }
    }

    @Test
    func aSecondSigtermDuringAStuckShutdownExitsAtOnce() async throws {
        try await withStoppingDaemon { broker, daemon, state in
            // A hung broker: the connection stays open, the `offline` status is never acknowledged,
            // so the graceful shutdown waits on it; the second SIGTERM ends that wait.
            broker.freeze()
            daemon.signal(SIGTERM)
            // The guard's own line: a second signal sent before it could be reported together
            // with the first.
            try await daemon.waitForOutput("SIGTERM again exits at once", within: Self.exitWait)
            daemon.signal(SIGTERM)
            let status = try await daemon.exit(within: Self.exitWait)
            #expect(status == ShutdownDeadline.forcedExitStatus, "\(daemon.output.suffix(3000))")
            #expect(daemon.output.contains("SIGTERM came again while stopping"))
            try Self.expectStateAfterStop(state, daemon)
        }
    }

    /// The state file after the stop: the relay left on as it was, the other switched off by its
    /// shutdown policy and that edge committed.
    static func expectStateAfterStop(_ state: String, _ daemon: ServeProcess) throws {
        let store = try StateStore(path: state + "/housectl.sqlite")
        defer { try? store.close() }
        #expect(try store.integrityCheck() == "ok")
        let relays = try store.relayStates()
        #expect(relays["living-ceiling-light"] == .on, "shutdown: leave keeps it on\n\(daemon.output.suffix(3000))")
        #expect(relays["kitchen-light"] == .off, "shutdown: off, and committed\n\(daemon.output.suffix(3000))")
    }

    /// A mosquitto, `housectl serve` on it (ready), the two relays switched on and acknowledged;
    /// then `body` stops it. Everything is removed afterwards, the processes killed if still there.
    func withStoppingDaemon(_ body: (MosquittoBroker, ServeProcess, String) async throws -> Void) async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("housectl-shutdown-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let config = try KillDaemonTests.makeHouse(in: work)
        let text = try String(contentsOfFile: config, encoding: .utf8)
        let kitchen = "relay: {node: pi-main, channel: 5}}"
        #expect(text.contains(kitchen))
        try text.replacingOccurrences(of: kitchen, with: "relay: {node: pi-main, channel: 5}, shutdown: off}")
            .write(toFile: config, atomically: true, encoding: .utf8)
        let state = work.appendingPathComponent("state").path

        try await withMosquitto { broker in
            let daemon = try ServeProcess(config: config, port: broker.port, stateDirectory: state)
            do {
                let mqtt = try MQTTClient(configuration: MQTTConfiguration(host: broker.host, port: broker.port))
                try await mqtt.connect()
                let replies = try await mqtt.subscribe(to: "test/shutdown/replies")
                // The retained state is published after the topic API's subscriptions are made:
                // once it is here, a `set` reaches the controller.
                let ready = try await mqtt.subscribe(to: "house/living-room/living-ceiling-light/state")
                try await withTimeout(.seconds(30), "housectl serve ready") {
                    for try await _ in ready { return }
                }
                for (i, topic) in ["house/living-room/living-ceiling-light/set", "house/kitchen/kitchen-light/set"].enumerated() {
                    try await mqtt.publish(to: topic, payload: #"{"id":"s-\#(i)","state":"ON","reply_to":"test/shutdown/replies"}"#,
                                           qos: .atLeastOnce)
                    let reply = try await withTimeout(.seconds(10), "the reply to \(topic)") {
                        for try await m in replies { return try JSONDecoder().decode(IntentReply.self, from: Data(m.payload)) }
                        throw TimeoutError(what: "the reply", after: .zero)
                    }
                    #expect(reply.status == .done, "\(topic): \(reply.dialog)")
                }
                await mqtt.disconnect()
                try await body(broker, daemon, state)
                await daemon.kill()
            } catch {
                await daemon.kill()
                Issue.record("housectl serve output:\n\(daemon.output.suffix(4000))")
                throw error
            }
        }
    }
}

/// `housectl serve` as a child process, its output read as it comes, its exit observed by its
/// termination event.
final class ServeProcess: Sendable {
    let watched: WatchedProcess
    var process: SpawnedProcess { watched.process }

    init(config: String, port: Int, stateDirectory: String) throws {
        watched = try WatchedProcess(
            KillDaemonTests.binary,
            ["serve", "--no-web", "--config", config, "--broker", "127.0.0.1:\(port)", "--gpio", "sim",
             "--state-dir", stateDirectory, "--node", "pi-main"])
    }

    /// What it has written so far (all of it once `exit` has returned).
    var output: String { watched.output }

    func signal(_ signal: Int32) {
        process.send(signal)
    }

    /// The exit status, once the process has exited and its output has ended; throws
    /// `TimeoutError` after `limit`.
    func exit(within limit: Duration) async throws -> Int32 {
        let process = self.process
        let status = try await withTimeout(limit, "housectl serve to exit") { await process.waitForExit() }
        _ = await watched.end(within: .seconds(5))
        return status
    }

    /// Returns once the output contains `text`, at most `limit`.
    func waitForOutput(_ text: String, within limit: Duration) async throws {
        guard await watched.appearance(of: text, within: limit) else {
            throw TimeoutError(what: "'\(text)' in the output of housectl serve", after: limit)
        }
    }

    /// SIGKILL, if still running, and wait for the exit.
    func kill() async {
        signal(SIGKILL)
        _ = try? await exit(within: .seconds(10))
    }
}
