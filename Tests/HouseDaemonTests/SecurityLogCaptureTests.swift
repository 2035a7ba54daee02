import Foundation
import HouseBroker
import HouseCore
import HouseMQTT
import HouseTesting
import Logging
import Synchronization
import Testing
@testable import HouseDaemon

/// Runs a controller of the example house on a manual clock and a simulated chip, connected to
/// the broker on `port`, until `body` returns; its state directory is removed afterwards.
func runSecurityController<T: Sendable>(
    _ config: HouseConfiguration, node: String = "pi-main", port: Int, logger: Logger,
    _ body: @Sendable (HouseController<ManualClock>) async throws -> T
) async throws -> T {
    let directory = NSTemporaryDirectory() + "housectl-security-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let settings = try securitySettings(config, node: node, stateDirectory: directory, port: port, logger: logger)
    return try await runController(try await HouseController.build(settings), body)
}

/// Settings for a controller of the example house on a manual clock and a simulated chip.
func securitySettings(_ config: HouseConfiguration, node: String = "pi-main", stateDirectory: String, port: Int,
                      logger: Logger) throws -> ControllerSettings<ManualClock> {
    let clock = ManualClock(start: Date(timeIntervalSince1970: 1_795_521_600))
    return ControllerSettings(
        configuration: config, clock: clock, node: node,
        stateDirectory: stateDirectory, chip: SimulatedChip(clock: clock),
        brokerOverride: (host: "127.0.0.1", port: port), clientID: "housectl-\(node)",
        reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500)),
        phrases: try defaultPhrases(), routines: false, logger: logger)
}

/// Secrets never appear in the logs: the MQTT password, from its file, is used to connect, and
/// neither a successful run nor a refused one writes it anywhere in the log.
@Suite(.serialized) struct SecurityLogCaptureTests {
    @Test func theMQTTPasswordNeverAppearsInTheLogs() async throws {
        let secret = "s3cret-Pa55-\(UUID().uuidString.prefix(8))"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("housectl-secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let passwordFile = directory.appendingPathComponent("mqtt-password").path
        try (secret + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let entry = PasswordFile.hashedEntry(user: "housectl", password: secret, salt: "c2FsdHNhbHQ=")
        let passwords = try PasswordFile(contents: entry + "\n")

        var config = try HouseFixtures.exampleConfiguration()
        config.mqtt.username = "housectl"
        config.mqtt.passwordFile = passwordFile
        let capture = LogCapture()
        try await withTestBroker(configure: { $0.passwordFile = passwords; $0.allowAnonymous = false }) { broker in
            // The right password: connected, a command handled, shut down.
            try await runSecurityController(config, port: broker.port, logger: capture.logger()) { controller in
                try await withTimeout(.seconds(20), "the controller ready") { await controller.waitUntilReady() }
                let outcome = await controller.submit(
                    .control(HouseControlIntent(room: "kitchen", action: .on, device: "kitchen-light")), source: .cli)
                #expect(outcome.status == .done)
            }
            // A wrong password: refused, said clearly, and still not echoed.
            let wrong = directory.appendingPathComponent("wrong-password").path
            try (secret + "-wrong\n").write(toFile: wrong, atomically: true, encoding: .utf8)
            config.mqtt.passwordFile = wrong
            try await runSecurityController(config, port: broker.port, logger: capture.logger()) { controller in
                let line = try await withTimeout(.seconds(20), "the refusal logged") { try await capture.line(containing: "refused the credentials") }
                #expect(line.contains("127.0.0.1:\(broker.port)"))
            }
        }
        let lines = capture.lines
        #expect(lines.count > 20)
        #expect(lines.contains { $0.contains("ready: connected") })
        let leaks = lines.filter { $0.contains(secret) }
        #expect(leaks.isEmpty, "the password is in the log: \(leaks.prefix(3))")
    }
}
