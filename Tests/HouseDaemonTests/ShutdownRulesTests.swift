import Foundation
import HouseCore
import HouseDaemon
import HouseGPIO
import HouseTesting
import Testing

/// The relays' shutdown policy is the last word: an edge it makes fires no rule, so nothing is
/// switched after it and left so when the process exits.
@Suite struct ShutdownRulesTests {
    /// The example house with `kitchen-light` switched off at shutdown and a rule that turns the
    /// hall light on whenever the kitchen light goes off.
    static func house() throws -> HouseConfiguration {
        let kitchen = "relay: {node: pi-main, channel: 5}}"
        var yaml = try String(contentsOfFile: HouseFixtures.exampleConfigPath, encoding: .utf8)
        #expect(yaml.contains(kitchen) && yaml.contains("\nrules:\n"))
        yaml = yaml.replacingOccurrences(of: kitchen, with: "relay: {node: pi-main, channel: 5}, shutdown: off}")
        yaml = yaml.replacingOccurrences(of: "\nrules:\n", with: """

            rules:
              - id: kitchen-off-hall-on
                when: {device: kitchen-light, state: "OFF"}
                intent: {device: hall-light, action: "on"}

            """)
        return try ConfigurationLoader().load(yaml: yaml, file: HouseFixtures.exampleConfigPath, boards: HouseFixtures.boards())
    }

    @Test func theShutdownPolicysEdgesFireNoRule() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_795_521_600))
        let chip = SimulatedChip(clock: clock)
        let directory = NSTemporaryDirectory() + "housectl-shutdown-rules-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lines = try await withController(configuration: try Self.house(), stateDirectory: directory, chip: chip, clock: clock) { f in
            let client = f.client()
            // The rule works: the kitchen light going off turns the hall light on.
            _ = try await client.send(.text("turn on the kitchen light"))
            _ = try await client.send(.text("turn off the kitchen light"))
            try await f.waitUntil("the rule to turn the hall light on") { f.relayIsOn("hall-light") == true }
            _ = try await client.send(.text("turn off the hall light"))
            _ = try await client.send(.text("turn on the kitchen light"))
            try await f.waitUntil("the kitchen light on, the hall light off") {
                f.relayIsOn("kitchen-light") == true && f.relayIsOn("hall-light") == false
            }
            let layout = try #require(f.controller.relayLayout)
            let line = { (device: DeviceID) in layout.channels.first { $0.device == device }.map { ($0.line, $0.activeLow) } }
            return (kitchen: try #require(line("kitchen-light")), hall: try #require(line("hall-light")))
        }
        // After the stop: the kitchen light off by its policy, and the hall light still off.
        #expect(chip.physicalLevel(line: lines.kitchen.0).map { $0 != lines.kitchen.1 } == false, "shutdown: off")
        #expect(chip.physicalLevel(line: lines.hall.0).map { $0 != lines.hall.1 } == false)
        // The rule ran once, for the kitchen light switched off by a command; not for the
        // shutdown's edge (where the released relays would have refused it, and a rule on another
        // node's device or a mode would have gone through).
        let store = try StateStore(path: directory + "/housectl.sqlite")
        defer { try? store.close() }
        let ruleRecords = try store.history().filter { $0.source == IntentSource.rule.rawValue }
        #expect(ruleRecords.count == 1, "\(ruleRecords.map { "\($0.summary): \($0.outcome) \($0.dialog)" })")
    }
}
