import Foundation
import HouseCore
import HouseTesting
import Testing
@testable import housectl

/// `housectl shortcuts`: ranked by the windows and by the household's habits, at `--now` or at
/// the clock it is given (never the machine's hour in a test).
@Suite struct ShortcutsCommandTests {
    let config = HouseFixtures.exampleConfigPath

    /// The example household's history in a file, removed after `body`.
    func withHistory<T>(_ body: (String) throws -> T) throws -> T {
        let configuration = try HouseFixtures.exampleConfiguration()
        let simulator = HouseholdSimulator.example(configuration)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString).jsonl").path
        try simulator.jsonLines(simulator.history(from: HouseholdSimulator.exampleStart, days: 56, habits: HouseholdSimulator.exampleHabits))
            .write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        return try body(file)
    }

    func clock(at local: String) throws -> ManualClock {
        let calendar = HouseCalendar(house: try HouseFixtures.exampleConfiguration().house)
        return ManualClock(start: try #require(calendar.parseLocal(local)))
    }

    @Test func habitsRankTheRoutinesThatDoThemAndListWhatNoRoutineDoes() throws {
        try withHistory { file in
            // Monday 06:40: Good morning house by its window; the hall light by habit, which no routine switches on.
            let morning = try ShortcutsCommand.parse(["--config", config, "--from-history", file, "--now", "2026-04-20 06:40"])
                .execute(clock: try clock(at: "2030-01-01 12:00"))
            #expect(morning.exitCode == 0, "\(morning.errors)")
            #expect(morning.text.hasPrefix("""
                Relevant shortcuts at Monday 2026-04-20 06:40 BST:
                  1. "Good morning house" (good-morning): relevant 06:00-09:00 on weekdays; now Monday 06:40
                Done by habit at this time, by no routine:
                  - turn on the hall light: around 06:3
                """))
            // 23:20: Good night house ranks with the habit of setting the night mode then.
            let night = try ShortcutsCommand.parse(["--config", config, "--from-history", file, "--now", "2026-04-19 23:20"])
                .execute(clock: try clock(at: "2030-01-01 12:00"))
            #expect(night.text.contains("1. \"Good night house\" (good-night): relevant sunset"))
            #expect(night.text.contains("; a habit: around 23:1"))
            #expect(night.text.contains(" every day, "))
            // Without --now, the clock it is given: the same as --now at that time.
            let clocked = try ShortcutsCommand.parse(["--config", config, "--from-history", file]).execute(clock: try clock(at: "2026-04-20 06:40"))
            #expect(clocked == morning)
        }
    }

    @Test func withoutAHistoryTheWindowsAloneRankAndItSaysSo() throws {
        let nowhere = FileManager.default.temporaryDirectory.appendingPathComponent("nowhere-\(UUID().uuidString)").path
        let out = try ShortcutsCommand.parse(["--config", config, "--state-dir", nowhere]).execute(clock: try clock(at: "2026-11-23 07:15"))
        #expect(out.exitCode == 0)
        #expect(out.text == """
            Relevant shortcuts at Monday 2026-11-23 07:15 GMT:
              1. "Good morning house" (good-morning): relevant 06:00-09:00 on weekdays; now Monday 07:15
            """)
        #expect(out.errors == "no state database at \(nowhere)/housectl.sqlite: give --state-dir (where housectl serve keeps it) or --from-history FILE; ranked by the windows alone")
        let missing = try ShortcutsCommand.parse(["--config", config, "--from-history", nowhere]).execute(clock: try clock(at: "2026-11-23 07:15"))
        #expect(missing.exitCode == 1)
        #expect(try ShortcutsCommand.parse(["--config", config, "--state-dir", nowhere, "--at", "2026-11-23 07:15"])
            .execute(clock: try clock(at: "2030-01-01 00:00")).text == out.text)
    }
}
