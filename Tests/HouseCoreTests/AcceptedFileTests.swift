import Foundation
import Testing
@testable import HouseCore
import HouseTesting

/// housectl's file beside house.yaml: read into the configuration with its own file:line:column
/// in every problem, an id house.yaml has too refused naming both places, and the file written
/// for an accepted or dismissed suggestion.
@Suite struct AcceptedFileTests {
    let base: String

    init() throws {
        base = try String(contentsOfFile: HouseFixtures.exampleConfigPath, encoding: .utf8)
    }

    func load(_ owned: String, house: String? = nil) throws(ConfigurationError) -> HouseConfiguration {
        try ConfigurationLoader().load(yaml: house ?? base, file: "config/house.yaml", accepted: (owned, "config/house.accepted.yaml"),
                                       boards: HouseFixtures.boards())
    }

    /// Where `text` is in house.yaml, on the first line with `context`: "line:column".
    func place(of text: String, onLineWith context: String) throws -> String {
        let lines = base.components(separatedBy: "\n")
        let line = try #require(lines.firstIndex { $0.contains(context) })
        let column = lines[line].distance(from: lines[line].startIndex, to: try #require(lines[line].range(of: text)).lowerBound)
        return "\(line + 1):\(column + 1)"
    }

    @Test func itIsNamedAfterTheConfigurationBesideIt() {
        #expect(AcceptedFile.path(forConfigAt: "config/house.yaml") == "config/house.accepted.yaml")
        #expect(AcceptedFile.path(forConfigAt: "/etc/housectl/cottage.yml") == "/etc/housectl/cottage.accepted.yaml")
        #expect(AcceptedFile.path(forConfigAt: "house.yaml") == "house.accepted.yaml")
    }

    @Test func newItemsChangesAndAnswersAreReadWithHouseYaml() throws {
        let house = try load("""
            suggestions:
              accepted: [s-00000000000000a1]
              dismissed: [s-00000000000000d1]
            routines:
              - id: kitchen-light-on-weekday-mornings
                shortcut: Kitchen light on weekday mornings
                relevant: {from: "06:30", to: "07:00", days: weekdays}
                run_at: "06:45"
                intent: {device: kitchen-light, action: "on"}
            modes:
              - {id: desk, rooms: [office], devices: {office-fan: ON, office-plug: ON}}
            changes:
              modes:
                - id: morning
                  devices: {hall-light: ON}
              devices:
                - id: garden-pump
                  max_on: 40m
              routines:
                - id: good-night
                  run_at: "23:30"
            """)
        let example = try HouseFixtures.exampleConfiguration()
        #expect(house.suggestions.answers == SuggestionAnswers(accepted: ["s-00000000000000a1"], dismissed: ["s-00000000000000d1"]))
        #expect(example.suggestions.answers == SuggestionAnswers())
        let routine = try #require(house.routine(id: "kitchen-light-on-weekday-mornings"))
        #expect(routine.runAt == .clock(TimeOfDay(hour: 6, minute: 45)))
        #expect(house.routines.count == example.routines.count + 1)
        #expect(house.mode(id: "desk")?.devices == ["office-fan": .on, "office-plug": .on])
        // The changes set keys on house.yaml's items and keep the rest of them.
        let morning = try #require(house.mode(id: "morning"))
        #expect(morning.devices["hall-light"] == .on)
        #expect(morning.devices["kitchen-light"] == example.mode(id: "morning")?.devices["kitchen-light"])
        #expect(house.device(id: "garden-pump")?.maxOn == .seconds(2400))
        #expect(house.device(id: "garden-pump")?.relay == example.device(id: "garden-pump")?.relay)
        #expect(house.routine(id: "good-night")?.runAt == .clock(TimeOfDay(hour: 23, minute: 30)))
        #expect(house.routine(id: "good-night")?.relevant == example.routine(id: "good-night")?.relevant)
    }

    /// Every problem at its own file's line and column: the accepted file's at its own, house.yaml's at house.yaml's.
    @Test func problemsAreReportedAtTheirOwnFileLineAndColumn() throws {
        let owned = """
            routines:
              - id: good-morning
                shortcut: Again
                intent: {mode: morning}
              - id: late
                shortcut: Late
                run_at: "25:00"
                intent: {mode: night}
            changes:
              devices:
                - id: garden-pupm
                  max_on: 1h
              modes:
                - id: morning
                  devices: {attic-light: ON}
            """
        let error = try #require(throws: ConfigurationError.self) {
            try load(owned, house: base + "\nsuggestions: {enabled: maybe}\n")
        }
        let lines = base.split(separator: "\n", omittingEmptySubsequences: false).count
        let theirs = try place(of: "good-morning", onLineWith: "- id: good-morning")
        let found = error.diagnostics.map(\.description)
        #expect(Array(found.prefix(4)) == [
            "config/house.yaml:\(lines + 1):24: error: expected true or false, found 'maybe'",
            "config/house.accepted.yaml:2:9: error: routine 'good-morning' is in house.yaml too, at config/house.yaml:\(theirs); "
                + "housectl's file only adds new ones: rename or delete one of the two",
            "config/house.accepted.yaml:7:13: error: expected a time HH:MM (24-hour, quoted) or a sun event such as sunset, sunrise+30m, dusk-1h, found '25:00'",
            "config/house.accepted.yaml:11:11: error: no device 'garden-pupm' in house.yaml to change (did you mean 'garden-pump'?)",
        ])
        #expect(found.count == 5)
        #expect(found.last?.hasPrefix("config/house.accepted.yaml:15:17: error: unknown device 'attic-light'") == true)
    }

    @Test func answersAreWrittenAndReadBack() throws {
        let pump = Habit(pattern: .duration("garden-pump", upTo: .seconds(2400)),
                         evidence: HabitEvidence(occurrences: 9, outOf: 10, firstSeen: Date(timeIntervalSince1970: 0), lastSeen: Date(timeIntervalSince1970: 86400 * 20)))
        let maxOn = HabitSuggestion(kind: .maxOn, key: "garden-pump|3", habit: pump, text: "max_on", yaml: "devices:\n  - id: garden-pump\n    max_on: 40m\n")
        let desk = HabitSuggestion(kind: .mode, key: "desk", habit: pump, text: "mode",
                                   yaml: "modes:\n  - id: desk\n    rooms: [office]\n    devices: {office-fan: ON}\n", mode: "desk")
        let plug = HabitSuggestion(kind: .addToRoutine, key: "plug", habit: pump, text: "add",
                                   yaml: "modes:\n  - id: desk\n    devices: {office-plug: ON}\n", mode: "desk")
        var text = try AcceptedFile.accepting(maxOn, file: nil, house: base)
        #expect(text.hasPrefix(AcceptedFile.header))
        text = try AcceptedFile.dismissing(desk.id, file: text)
        text = try AcceptedFile.accepting(desk, file: text, house: base)
        text = try AcceptedFile.accepting(plug, file: text, house: base)
        text = try AcceptedFile.dismissing("s-00000000000000d1", file: text)
        let house = try load(text)
        #expect(house.suggestions.answers == SuggestionAnswers(accepted: [maxOn.id, desk.id, plug.id], dismissed: ["s-00000000000000d1"]))
        #expect(house.device(id: "garden-pump")?.maxOn == .seconds(2400))
        // A device added to a mode of the file is added to that item, not made a change to house.yaml.
        #expect(house.mode(id: "desk")?.devices == ["office-fan": .on, "office-plug": .on])
        #expect(text.contains("changes:\n  devices:\n  - id: garden-pump\n    max_on: 40m\n"))
        #expect(!text.contains("changes:\n  modes"))
    }

    @Test func aFileThatIsNotAMappingIsRefusedWhereItIs() throws {
        let error = try #require(throws: ConfigurationError.self) { try load("- just\n- a list\n") }
        #expect(error.diagnostics.map(\.description) == [
            "config/house.accepted.yaml:1:1: error: expected housectl's file of accepted suggestions as a mapping of key: value, found a list",
        ])
        #expect(throws: ConfigurationError.self) { try AcceptedFile.dismissing("s-1", file: "[unclosed") }
    }
}
