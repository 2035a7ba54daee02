import Foundation
import HouseMQTT
import HouseTesting
import Testing
@testable import HouseDaemon

/// The command stream of `FaultCommandStreamTests` against a real mosquitto that is killed with
/// SIGKILL (a crash or power loss) and started again from its persistence file, saved on every
/// change.
///
/// mosquitto acknowledges a QoS 1 PUBLISH before it saves it, so a SIGKILL right after a PUBACK
/// can lose commands it had not yet delivered. The short version therefore kills it once the
/// controller has caught up (what is tested: commands queued while it is down and the stream
/// after the restart); the soak version kills it mid-stream and reports what that loses as a
/// known issue of the broker, not of housectl.
@Suite(.serialized, .enabled(if: MosquittoBroker.shouldRun, "mosquitto not installed: skipping real-broker tests (set CI=true to fail instead)"))
struct FaultMosquittoTests {
    @Test func mosquittoKilledAndRestartedDuringAStreamOfCommandsLosesNone() async throws {
        let commands = Soak.enabled ? Soak.commands : 200
        let faults = Soak.enabled ? Soak.rounds : 1
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("housectl-mosquitto-db-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withMosquitto(configLines: [
            "persistence true", "persistence_location \(directory.path)/", "autosave_interval 1", "autosave_on_changes true",
            "max_queued_messages \(commands + 1000)",
        ]) { broker in
            try await withController(brokerPort: broker.port) { f in
                let counts = try await runCommandStream(
                    f, port: broker.port, commands: commands, faults: faults, drainBeforeKill: !Soak.enabled,
                    kill: { await broker.kill() }, restart: { try await broker.restart() })
                if Soak.enabled { Soak.report("mosquitto SIGKILL mid-stream", counts) }
                #expect(counts.sent == commands)
                #expect(counts.doubled == 0, "\(counts)")
                if Soak.enabled {
                    withKnownIssue("mosquitto loses what it acknowledged but had not saved when SIGKILLed", isIntermittent: true) {
                        #expect(counts.lost == 0, "\(counts)")
                    }
                } else {
                    #expect(counts.lost == 0, "\(counts)")
                    #expect(counts.edges == commands, "\(counts)")
                }
                #expect(try f.controller.store.integrityCheck() == "ok")
            }
        }
    }
}
