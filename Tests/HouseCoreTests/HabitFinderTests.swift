import Foundation
@testable import HouseCore
import HouseTesting
import Testing

/// The habit finder and the suggestions on a simulated household of the example house: eight
/// weeks across the change to summer time, with injected habits, skipped days, a holiday and
/// random switching.
@Suite struct HabitFinderTests {
    let configuration: HouseConfiguration
    let calendar: HouseCalendar

    init() throws {
        configuration = try HouseFixtures.exampleConfiguration()
        calendar = HouseCalendar(house: configuration.house)
    }

    /// The end of the eight weeks: Sunday 2026-04-19, 23:59 local.
    var now: Date { calendar.resolve(TimeOfDay(hour: 23, minute: 59), on: HouseholdSimulator.exampleStart.adding(days: 55)).earliest }

    func history(habits: [HouseholdSimulator.InjectedHabit] = HouseholdSimulator.exampleHabits, seed: UInt64 = 63,
                 noise: Int = 3) -> [HabitEvent] {
        var simulator = HouseholdSimulator.example(configuration, seed: seed)
        simulator.noisePerDay = noise
        return simulator.history(from: HouseholdSimulator.exampleStart, days: 56, habits: habits)
    }

    /// Whether `suggestion` is about `injected`.
    static func matches(_ suggestion: HabitSuggestion, _ injected: HouseholdSimulator.InjectedHabit) -> Bool {
        switch (suggestion.habit.pattern, injected) {
        case (.timeOfDay(let s, let days, let from, let to), .timeOfDay(let t, let injectedDays, let at)):
            let m = at.minutesSinceMidnight, a = from.minutesSinceMidnight, b = to.minutesSinceMidnight
            let inside = a <= b ? (a...b).contains(m) : m >= a || m <= b
            return s == t && days == injectedDays && inside
        case (.sequence(let a, let b, _), .sequence(let x, let y, _)):
            return a == x && b == y
        case (.duration(let d, let upTo), .duration(let e, let minutes)):
            return d == e && upTo >= .seconds(minutes * 60) && upTo <= .seconds(minutes * 90)
        case (.together(let s, _), .together(let t, _)):
            return Set(s) == Set(t)
        default:
            return false
        }
    }

    @Test(arguments: [63, 64, 65] as [UInt64])
    func recoversTheInjectedHabitsWithPrecision(seed: UInt64) throws {
        let suggestions = configuration.habitSuggestions(from: history(seed: seed), now: now)
        let injected = HouseholdSimulator.exampleHabits
        let found = injected.filter { habit in suggestions.contains { Self.matches($0, habit) } }
        let right = suggestions.filter { s in injected.contains { Self.matches(s, $0) } }
        let recall = Double(found.count) / Double(injected.count)
        let precision = suggestions.isEmpty ? 0 : Double(right.count) / Double(suggestions.count)
        print("habits, seed \(seed): recall \(found.count)/\(injected.count) = \(Int(recall * 100))%, "
              + "precision \(right.count)/\(suggestions.count) = \(Int(precision * 100))%")
        for s in suggestions where !right.contains(s) { print("  unexpected: \(s.text)") }
        for h in injected where !found.contains(h) { print("  missed: \(h)") }
        #expect(recall >= 0.9)
        #expect(precision >= 0.9)
    }

    @Test func suggestsWhatEachHabitCallsFor() throws {
        let suggestions = configuration.habitSuggestions(from: history(), now: now)
        func suggestion(for habit: HouseholdSimulator.InjectedHabit) throws -> HabitSuggestion {
            try #require(suggestions.first { Self.matches($0, habit) }, "no suggestion for \(habit)")
        }
        let habits = HouseholdSimulator.exampleHabits
        // Inside Good morning house's window, whose mode does not switch the hall light: add it.
        let hall = try suggestion(for: habits[0])
        #expect(hall.kind == .addToRoutine)
        #expect(hall.routine == "good-morning" && hall.mode == "morning")
        #expect(hall.text.contains("You turn on the hall light around 06:"))
        #expect(hall.text.contains("on weekdays"))
        #expect(hall.text.contains("'Good morning house'"))
        // Across midnight, in Good night house's window (sunset to 02:00).
        let fan = try suggestion(for: habits[3])
        #expect(fan.kind == .addToRoutine && fan.mode == "night")
        // A new routine with a relevance window.
        let plug = try suggestion(for: habits[1])
        #expect(plug.kind == .newRoutine)
        #expect(plug.text.contains("make a routine 'Office desk plug on weekday mornings' that does it at 0"))
        #expect(plug.text.contains(", relevant 08:"))
        #expect(plug.text.contains(" on weekdays?"))
        #expect(plug.yaml.contains("relevant: {from: \"08:"))
        #expect(plug.yaml.contains("\", days: weekdays}\n    run_at: \"0"))
        let water = try suggestion(for: habits[5])
        #expect(water.yaml.contains("days: [wednesday, sunday]"))
        #expect(water.yaml.contains("intent: {routine: garden-water}"))
        // The garage door asks for a yes: the suggestion says so, and its routine is confirmed.
        let door = try suggestion(for: habits[6])
        #expect(door.text.contains("confirm: true"))
        #expect(door.yaml.contains("confirmed: true"))
        #expect(!door.confirmNotes.isEmpty)
        // Durations: max_on, the heater's with a note.
        let heater = try suggestion(for: habits[10])
        #expect(heater.kind == .maxOn)
        #expect(heater.text.contains("confirm: true"))
        #expect(heater.yaml.contains("max_on: 30m"))
        #expect(try suggestion(for: habits[7]).kind == .rule)
        // Good night house sets the mode night then, but has no run time: people set it by hand.
        let night = try suggestion(for: habits[11])
        #expect(night.kind == .runAt && night.routine == "good-night" && night.mode == "night")
        #expect(night.text.contains("'Good night house' does it (relevant sunset-02:00 every day): give it run_at: \"23:"))
        #expect(night.yaml.contains("routines:\n  - id: good-night\n    run_at: \"23:"))
        // Two devices switched together, in either order: a mode for both rooms.
        let together = try suggestion(for: habits[12])
        #expect(together.kind == .mode)
        #expect(together.text.hasPrefix("You turn on the garage light and the garden pump together, within "))
        #expect(together.yaml.contains("    rooms: [garage, garden]\n    devices: {garage-light: ON, garden-pump: ON}"))
    }

    /// A run time is suggested for a shortcut run by hand, or one whose own intent the habit is:
    /// the hall light on at 23:30, which the mode Good night house sets also switches on, is a
    /// routine of its own, not the whole night mode at 23:30.
    @Test func aRunTimeIsOnlyForTheRoutineItselfOrItsOwnIntent() throws {
        let hall = HouseholdSimulator.InjectedHabit.timeOfDay(.device("hall-light", .on), days: .everyDay, at: TimeOfDay(hour: 23, minute: 30))
        let suggestions = configuration.habitSuggestions(from: history(habits: [hall]), now: now)
        let found = try #require(suggestions.first { $0.habit.devices == ["hall-light"] && $0.habit.evidence.medianTime != nil })
        #expect(found.kind == .newRoutine)
        #expect(!suggestions.contains { $0.kind == .runAt })
        let said = HouseholdSimulator.InjectedHabit.timeOfDay(.routine("good-night"), days: .everyDay, at: TimeOfDay(hour: 23, minute: 5))
        let shortcut = try #require(configuration.habitSuggestions(from: history(habits: [said]), now: now).first { $0.kind == .runAt })
        #expect(shortcut.routine == "good-night")
        #expect(shortcut.text.hasPrefix("You run 'Good night house' around 23:0"))
    }

    /// A set with a `confirm: true` device says so; the same two devices always in one order,
    /// minutes apart, are a sequence (a rule), not a set.
    @Test func devicesSwitchedTogetherAreAModeAndAnOrderIsASequence() throws {
        let heater = HouseholdSimulator.InjectedHabit.together([.device("bathroom-heater", .on), .device("office-fan", .on)], gapSeconds: 2...40)
        let set = configuration.habitSuggestions(from: history(habits: [heater], noise: 2), now: now)
        let mode = try #require(set.first { $0.kind == .mode }, "\(set.map(\.text))")
        #expect(mode.text.contains("the bathroom heater is confirm: true"))
        #expect(!mode.confirmNotes.isEmpty)
        #expect(!set.contains { $0.kind == .rule }, "a set is no sequence in either order")
        let ordered = HouseholdSimulator.InjectedHabit.sequence(.device("hall-light", .on), then: .device("kitchen-light", .on), gapSeconds: 60...180)
        let sequence = configuration.habitSuggestions(from: history(habits: [ordered], noise: 2), now: now)
        #expect(sequence.contains { $0.kind == .rule })
        #expect(!sequence.contains { $0.kind == .mode })
    }

    @Test func findsNothingInNoise() {
        let noise = history(habits: [], noise: 8)
        #expect(noise.count > 800)
        let suggestions = configuration.habitSuggestions(from: noise, now: now)
        #expect(suggestions.isEmpty, "\(suggestions.map(\.text))")
    }

    @Test func theSameHistoryGivesTheSameSuggestions() {
        let events = history()
        var rng = SeededJitterGenerator(seed: 7)
        let first = configuration.habitSuggestions(from: events, now: now)
        let again = configuration.habitSuggestions(from: events.shuffled(using: &rng), now: now)
        #expect(first == again)
        #expect(first.map(\.id) == again.map(\.id))
        #expect(Set(first.map(\.id)).count == first.count)
    }

    @Test func aDismissedSuggestionKeepsItsIdWhileTheHabitHolds() {
        let before = configuration.habitSuggestions(from: history(seed: 63), now: now)
        let after = configuration.habitSuggestions(from: history(seed: 63), now: now.addingTimeInterval(7 * 86400))
        // A week later (the last week empty) the habits still hold; the ids of the same suggestions stay.
        let same = before.filter { b in after.contains { $0.id == b.id } }
        #expect(same.count >= before.count - 1)
        var moved = HouseholdSimulator.exampleHabits
        moved[1] = .timeOfDay(.device("office-plug", .on), days: .weekdaysOnly, at: TimeOfDay(hour: 10, minute: 30))
        let changed = configuration.habitSuggestions(from: history(habits: moved), now: now)
        let plug = before.first { $0.habit.devices == ["office-plug"] }
        #expect(plug != nil && !changed.contains { $0.id == plug?.id })
    }

    @Test func turnedOffOrTooLittleSuggestsNothing() {
        var off = configuration
        off.suggestions.enabled = false
        #expect(off.habitSuggestions(from: history(), now: now).isEmpty)
        var strict = configuration
        strict.suggestions.minOccurrences = 60
        #expect(strict.habitSuggestions(from: history(), now: now).isEmpty)
        // Two weeks of a daily habit is not enough when four are asked for.
        let twoWeeks = history().filter { $0.time >= now.addingTimeInterval(-13 * 86400) }
        var weeks = configuration
        weeks.suggestions.minWeeks = 4
        #expect(weeks.habitSuggestions(from: twoWeeks, now: now).isEmpty)
    }

    @Test func aHabitAcrossMidnightIsOneHabit() {
        let habit = HouseholdSimulator.InjectedHabit.timeOfDay(.device("bedroom-fan", .on), days: .everyDay, at: TimeOfDay(hour: 23, minute: 58))
        let habits = HabitFinder(configuration: configuration).habits(in: history(habits: [habit], noise: 0), now: now)
        let found = habits.filter { if case .timeOfDay(.device("bedroom-fan", .on), _, _, _) = $0.pattern { true } else { false } }
        #expect(found.count == 1)
        guard case .timeOfDay(_, let days, let from, let to)? = found.first?.pattern else { return }
        #expect(days == .everyDay)
        #expect(from > to, "the window \(from)-\(to) crosses midnight")
        let median = found.first?.evidence.medianTime?.minutesSinceMidnight ?? 0
        #expect(median >= 23 * 60 + 45 || median <= 10)
    }

    @Test func localTimeHoldsAcrossTheChangeToSummerTime() throws {
        let habit = HouseholdSimulator.InjectedHabit.timeOfDay(.device("office-plug", .on), days: .weekdaysOnly, at: TimeOfDay(hour: 9, minute: 0))
        var simulator = HouseholdSimulator.example(configuration)
        simulator.jitterMinutes = 0
        simulator.skipChance = 0
        simulator.noisePerDay = 0
        let events = simulator.history(from: HouseholdSimulator.exampleStart, days: 56, habits: [habit])
        let habits = HabitFinder(configuration: configuration).habits(in: events, now: now)
        let found = try #require(habits.first { $0.devices == ["office-plug"] && $0.evidence.medianTime != nil })
        #expect(found.evidence.medianTime == TimeOfDay(hour: 9, minute: 0))
        #expect(found.evidence.spread == .zero)
        // 40 weekdays less Good Friday and Easter Monday, all seen.
        #expect(found.evidence.occurrences == 38 && found.evidence.outOf == 38)
    }
}
