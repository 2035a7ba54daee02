import Foundation
import HouseMQTT
import HouseTesting
import Testing
@testable import HouseDaemon

/// The command stream of `FaultCommandStreamTests` against a real mosquitto that is killed with
/// SIGKILL (a crash or power loss) and started again from its persistence file, saved on every
/// change so that what it acknowledged survives the crash.
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
                    f, port: broker.port, commands: commands, faults: faults,
                    kill: { await broker.kill() }, restart: { try await broker.restart() })
                if Soak.enabled { Soak.report("mosquitto SIGKILL", counts) }
                #expect(counts.sent == commands)
                #expect(counts.lost == 0, "\(counts)")
                #expect(counts.doubled == 0, "\(counts)")
                #expect(counts.edges == commands, "\(counts)")
                #expect(try f.controller.store.integrityCheck() == "ok")
            }
        }
    }
}
