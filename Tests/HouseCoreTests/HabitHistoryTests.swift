import Foundation
@testable import HouseCore
import HouseTesting
import Testing

/// The JSON-lines history reader, the ISO 8601 times it reads, the `suggestions:` settings and
/// the suggestions' snippets loaded into the example house.
@Suite struct HabitHistoryTests {
    let configuration: HouseConfiguration

    init() throws { configuration = try HouseFixtures.exampleConfiguration() }

    @Test func readsEachKindOfEvent() {
        let text = """
            {"time": "2026-03-02T06:47:12+00:00", "device": "kitchen-light", "action": "on"}

            {"time": "2026-03-30T22:40:00+01:00", "mode": "night"}
            {"time": "2026-03-30T21:41:00.250Z", "routine": "good-night"}
            """
        let history = HabitHistory.read(text, file: "h.jsonl", configuration: configuration)
        #expect(history.diagnostics.isEmpty)
        #expect(history.events.map(\.subject) == [.device("kitchen-light", .on), .mode("night"), .routine("good-night")])
        #expect(history.events[0].time == Date(timeIntervalSince1970: 1_772_434_032))
        #expect(history.events[1].time == Date(timeIntervalSince1970: 1_774_906_800))
        #expect(history.events[2].time == Date(timeIntervalSince1970: 1_774_906_860.25))
        #expect(history.lastTime == history.events[2].time)
    }

    @Test func everyBadLineIsReportedAtItsLineWithWhatWasExpected() {
        let text = """
            {"time": "2026-03-02T06:47:12+00:00", "device": "kitchen-light", "action": "on"}
            {"time": "2026-03-02T06:47:12+00:00", "device": "kitchen-light", "action": "on"
            ["not", "an", "object"]
            {"device": "kitchen-light", "action": "on"}
            {"time": "2026-03-02 06:47", "device": "kitchen-light", "action": "on"}
            {"time": "2026-03-02T06:47:12Z", "device": "kitchen-light", "action": "dim"}
            {"time": "2026-03-02T06:47:12Z", "mode": "night", "routine": "good-night"}
            {"time": "2026-03-02T06:47:12Z", "device": "kitchn-light", "action": "on"}
            {"time": "2026-03-02T06:47:12Z", "mode": "party"}
            {"time": "2026-03-02T06:47:12Z", "routine": "good-nite"}
            {"time": "2026-03-02T06:47:12Z", "device": "garden-pump", "action": "open"}
            {"time": "2026-03-02T06:47:12Z", "mode": "night", "source": "cli"}
            """
        let history = HabitHistory.read(text, file: "h.jsonl", configuration: configuration)
        let lines = history.diagnostics.map(\.description)
        #expect(history.events.count == 2)
        #expect(lines.count == 11, "\(lines)")
        #expect(lines[0].hasPrefix("h.jsonl:2: error: invalid JSON: expected"))
        #expect(lines[0].hasSuffix("expected {\"time\": ISO 8601, \"device\": id, \"action\": on/off/open/close}, {\"time\", \"mode\"} or {\"time\", \"routine\"}"))
        #expect(lines[1].hasPrefix("h.jsonl:3: error: not a JSON object"))
        #expect(lines[2].hasPrefix("h.jsonl:4: error: no \"time\""))
        #expect(lines[3] == "h.jsonl:5: error: \"time\" is '2026-03-02 06:47'; expected an ISO 8601 time with its offset, e.g. \"2026-03-02T06:47:12+00:00\"")
        #expect(lines[4] == "h.jsonl:6: error: \"action\" is 'dim'; expected one of on, off, open, close")
        #expect(lines[5] == "h.jsonl:7: error: \"mode\" and \"routine\" on one line; expected one event a line")
        #expect(lines[6] == "h.jsonl:8: warning: unknown device 'kitchn-light' (did you mean 'kitchen-light'?); line left out")
        #expect(lines[7] == "h.jsonl:9: warning: unknown mode 'party'; line left out")
        #expect(lines[8] == "h.jsonl:10: warning: unknown routine 'good-nite' (did you mean 'good-night'?); line left out")
        #expect(lines[9] == "h.jsonl:11: warning: the pump 'garden-pump' cannot open; line left out")
        #expect(lines[10] == "h.jsonl:12: warning: unknown key 'source' ignored")
        #expect(history.diagnostics.filter { $0.severity == .warning }.count == 5)
    }

    @Test(arguments: [
        ("2026-03-02T06:47:12+00:00", 1_772_434_032.0), ("2026-03-02T06:47:12Z", 1_772_434_032.0),
        ("2026-03-02T07:47:12+0100", 1_772_434_032.0), ("2026-03-02T01:47:12-05:00", 1_772_434_032.0),
        ("2026-03-02 06:47:12.5Z", 1_772_434_032.5),
    ])
    func readsISO8601Times(text: String, seconds: Double) {
        #expect(WallInstant(iso8601: text)?.date == Date(timeIntervalSince1970: seconds))
    }

    @Test(arguments: ["2026-03-02T06:47:12", "2026-03-02T06:47Z", "2026-02-30T06:47:12Z", "2026-03-02T25:47:12Z",
                      "2026-03-02T06:47:12+1", "2026-03-02T06:47:12.Z", "yesterday", ""])
    func refusesWhatIsNotAnISO8601Time(text: String) {
        #expect(WallInstant(iso8601: text) == nil)
    }

    @Test func suggestionSettingsAreReadWithLocatedErrors() throws {
        let base = try String(contentsOfFile: HouseFixtures.exampleConfigPath, encoding: .utf8)
        let on = try ConfigurationLoader().load(yaml: base + "\nsuggestions: {enabled: false, min_occurrences: 10, min_weeks: 3}\n",
                                                file: "test.yaml", boards: HouseFixtures.boards())
        #expect(on.suggestions == SuggestionSettings(enabled: false, minOccurrences: 10, minWeeks: 3))
        #expect(configuration.suggestions == SuggestionSettings())
        let lines = base.split(separator: "\n", omittingEmptySubsequences: false).count
        let errors = HouseFixtures.configurationErrors(base + "\nsuggestions: {enabled: maybe, min_occurrences: 1, min_wekes: 3}\n")
        #expect(errors == [
            "\(lines + 1):24: expected true or false, found 'maybe'",
            "\(lines + 1):48: expected a number of occurrences, 3...100, found '1'",
            "\(lines + 1):51: unknown key 'min_wekes' in suggestions (did you mean 'min_weeks'?)",
        ])
    }

    /// Every suggestion's snippet, merged into the example house, loads, and does what it says.
    @Test func everySnippetLoadsIntoTheExampleHouse() throws {
        var simulator = HouseholdSimulator.example(configuration)
        simulator.noisePerDay = 3
        let events = simulator.history(from: HouseholdSimulator.exampleStart, days: 56, habits: HouseholdSimulator.exampleHabits)
        let suggestions = configuration.habitSuggestions(from: events, now: try #require(events.last?.time))
        #expect(Set(suggestions.map(\.kind)) == Set(HabitSuggestion.Kind.allCases))
        let base = try String(contentsOfFile: HouseFixtures.exampleConfigPath, encoding: .utf8)
        for suggestion in suggestions {
            let merged = try ConfigurationSnippet.merge(suggestion.yaml, into: base)
            let house = try ConfigurationLoader().load(yaml: merged, file: "merged.yaml", boards: HouseFixtures.boards())
            switch suggestion.kind {
            case .newRoutine:
                let id = try #require(suggestion.routine)
                let routine = try #require(house.routine(id: id))
                #expect(routine.relevant != nil)
                #expect(house.routines.count == configuration.routines.count + 1)
            case .addToRoutine:
                let modeID = try #require(suggestion.mode)
                let mode = try #require(house.mode(id: modeID))
                let device = try #require(suggestion.habit.devices.first)
                #expect(mode.devices[device] != nil)
                #expect(mode.devices.count == (configuration.mode(id: mode.id)?.devices.count ?? 0) + 1)
            case .maxOn:
                let device = try #require(suggestion.habit.devices.first)
                #expect(house.device(id: device)?.maxOn != configuration.device(id: device)?.maxOn)
                #expect(house.device(id: device)?.relay == configuration.device(id: device)?.relay)
            case .rule:
                #expect(house.rules.count == configuration.rules.count + 1)
            case .runAt:
                let id = try #require(suggestion.routine)
                #expect(configuration.routine(id: id)?.runAt == nil)
                #expect(house.routine(id: id)?.runAt != nil)
            case .mode:
                let id = try #require(suggestion.mode)
                let mode = try #require(house.mode(id: id))
                #expect(Set(mode.devices.keys).union(mode.covers.keys) == Set(suggestion.habit.devices))
                #expect(house.modes.count == configuration.modes.count + 1)
            }
        }
    }
}
