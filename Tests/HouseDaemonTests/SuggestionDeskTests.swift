import Foundation
import HouseCore
import HouseTesting
import Testing
@testable import HouseDaemon

/// Accepting and dismissing suggestions (`SuggestionDesk`, what the command line and the page
/// share) on a copy of the example house: the answers are written beside house.yaml, which is
/// never rewritten, and kept across a restart; an accepted routine is in the configuration read
/// from disk again and runs on its window on a manual clock; a dismissed suggestion stays away
/// while its habit stays the same.
@Suite final class SuggestionDeskTests {
    /// This test's directory (a new instance per test), removed after it.
    let directory = NSTemporaryDirectory() + "housectl-desk-\(UUID().uuidString)"
    let configPath: String
    let calendar: HouseCalendar

    init() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        configPath = directory + "/house.yaml"
        try FileManager.default.copyItem(atPath: HouseFixtures.exampleConfigPath, toPath: configPath)
        calendar = HouseCalendar(house: try HouseFixtures.exampleConfiguration().house)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// A controller started again: a new desk on the same files.
    func desk() -> SuggestionDesk { SuggestionDesk(configPath: configPath, devicesDirectory: HouseFixtures.devicesDirectory) }

    /// The example household's eight weeks, with `habits`.
    func lines(_ habits: [HouseholdSimulator.InjectedHabit] = HouseholdSimulator.exampleHabits) throws -> HabitLines {
        let simulator = HouseholdSimulator.example(try HouseFixtures.exampleConfiguration())
        return HabitLines(text: simulator.jsonLines(simulator.history(from: HouseholdSimulator.exampleStart, days: 56, habits: habits)),
                          source: "history.jsonl")
    }

    func reload() throws -> HouseConfiguration {
        try ConfigurationLoader(devicesDirectory: HouseFixtures.devicesDirectory).load(path: configPath)
    }

    @Test func anAcceptedRoutineIsInTheConfigurationAfterARestartAndRunsOnItsWindow() throws {
        let house = try String(contentsOfFile: configPath, encoding: .utf8)
        let history = try lines()
        let before = try desk().list(history, now: nil)
        let plug = try #require(before.suggestions.first { $0.kind == .newRoutine && $0.habit.devices == ["office-plug"] })
        let routineID = try #require(plug.routine)
        try desk().accept(plug.id, from: history, now: nil)

        #expect(try String(contentsOfFile: configPath, encoding: .utf8) == house, "house.yaml is never rewritten")
        let configuration = try reload()
        let routine = try #require(configuration.routine(id: routineID))
        #expect(routine.intent == .control(room: nil, device: "office-plug", action: .on))
        #expect(configuration.suggestions.answers.accepted == [plug.id])
        let after = try desk().list(history, now: nil)
        #expect(!after.suggestions.contains { $0.id == plug.id })
        #expect(after.suggestions.count == before.suggestions.count - 1)
        #expect(throws: SuggestionError.alreadyAccepted(plug.id, file: desk().acceptedPath)) { try self.desk().accept(plug.id, from: history, now: nil) }

        // It runs by itself at its time on its days, on a manual clock; never on a weekend.
        let runAt = try #require(routine.runAt.flatMap { if case .clock(let t) = $0 { t } else { nil } })
        let monday = try #require(LocalDate(year: 2026, month: 4, day: 20))
        let clock = ManualClock(start: calendar.resolve(TimeOfDay(hour: 5, minute: 0), on: monday).earliest)
        var scheduler = RoutineScheduler(routines: configuration.routines, calendar: calendar, rng: SeededJitterGenerator(seed: 1))
        _ = scheduler.start(at: clock.now.date, lastActive: nil)
        let due = calendar.resolve(runAt, on: monday).earliest
        clock.advance(to: WallInstant(due.addingTimeInterval(-60)))
        #expect(!scheduler.takeDue(at: clock.now.date).contains { $0.routineID == routineID })
        clock.advance(to: WallInstant(due))
        #expect(scheduler.takeDue(at: clock.now.date).map(\.routineID).contains(routineID))
        let saturday = monday.adding(days: 5)
        #expect(scheduler.occurrence(of: routine, on: saturday) == nil)
        #expect(scheduler.occurrence(of: routine, on: monday.adding(days: 1))?.nominal == calendar.resolve(runAt, on: monday.adding(days: 1)).earliest)
    }

    @Test func aDismissedSuggestionStaysAwayAcrossARestartUntilItsHabitChanges() throws {
        let history = try lines()
        let plug = try #require(try desk().list(history, now: nil).suggestions.first { $0.habit.devices == ["office-plug"] })
        try desk().dismiss(plug.id, from: history, now: nil)
        #expect(!(try desk().list(history, now: nil).suggestions.contains { $0.id == plug.id }))
        #expect(try reload().suggestions.answers.dismissed == [plug.id])
        #expect(throws: SuggestionError.alreadyDismissed(plug.id)) { try self.desk().dismiss(plug.id, from: history, now: nil) }
        // The plug an hour and a half later: another habit, another id, suggested again.
        var moved = HouseholdSimulator.exampleHabits
        moved[1] = .timeOfDay(.device("office-plug", .on), days: .weekdaysOnly, at: TimeOfDay(hour: 10, minute: 30))
        let later = try desk().list(try lines(moved), now: nil).suggestions.first { $0.habit.devices == ["office-plug"] && $0.kind == .newRoutine }
        #expect(later != nil && later?.id != plug.id)
        // Dismissed, then accepted after all: no longer dismissed.
        try desk().accept(plug.id, from: history, now: nil)
        #expect(try reload().suggestions.answers == SuggestionAnswers(accepted: [plug.id], dismissed: []))
    }

    /// Every suggestion of the household accepted one after the other: each kind, the configuration
    /// loads after each, and nothing is left to suggest.
    @Test func everySuggestionCanBeAcceptedInTurn() throws {
        let history = try lines()
        let all = try desk().list(history, now: nil).suggestions
        #expect(Set(all.map(\.kind)) == Set(HabitSuggestion.Kind.allCases))
        for suggestion in all {
            try desk().accept(suggestion.id, from: history, now: nil)
            _ = try reload()
        }
        #expect(try desk().list(history, now: nil).suggestions.isEmpty)
        let configuration = try reload()
        #expect(configuration.routine(id: "good-night")?.runAt != nil)
        #expect(configuration.mode(id: "morning")?.devices["hall-light"] == .on)
        #expect(configuration.suggestions.answers.accepted == all.map(\.id))
    }

    @Test func whatCannotBeAnsweredSaysWhy() throws {
        let history = try lines()
        let ids = try desk().list(history, now: nil).suggestions.map(\.id)
        #expect(throws: SuggestionError.unknown("s-0000000000000000", current: ids)) {
            try self.desk().accept("s-0000000000000000", from: history, now: nil)
        }
        try "suggestions: {dismissed: s-1}\nroutines: [{id: good-morning, shortcut: Again, intent: {mode: morning}}]\n"
            .write(toFile: desk().acceptedPath, atomically: true, encoding: .utf8)
        let error = try #require(throws: SuggestionError.self) { try self.desk().list(history, now: nil) }
        guard case .configuration(let e) = error else { Issue.record("\(error)"); return }
        #expect(e.diagnostics.map(\.file) == [desk().acceptedPath])
        #expect(e.diagnostics.first?.line == 2)
        try FileManager.default.removeItem(atPath: desk().acceptedPath)
        try (String(contentsOfFile: configPath, encoding: .utf8) + "\nsuggestions: {enabled: false}\n").write(toFile: configPath, atomically: true, encoding: .utf8)
        #expect(try desk().list(history, now: nil).suggestions.isEmpty)
        #expect(throws: SuggestionError.off) { try self.desk().dismiss(ids[0], from: history, now: nil) }
    }
}
