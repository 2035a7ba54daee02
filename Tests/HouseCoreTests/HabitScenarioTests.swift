import Foundation
import Testing
@testable import HouseCore
import HouseTesting

/// Household histories written from the user's side, blind to the finder
/// (Tests/Fixtures/habits, see its README): what a good assistant should suggest and what it must
/// not. Every `must_not_find` holds (no false suggestion); the `must_find` entries found are
/// counted, and their share may not fall below what the finder reaches today.
@Suite struct HabitScenarioTests {
    static let folder = HouseFixtures.repositoryRoot + "/Tests/Fixtures/habits"

    /// One expectation of a scenario (`ENTRY` in the README).
    struct Entry {
        var fields: [String: Any]
        var kinds: [String] {
            if let k = fields["kind"] as? String { return [k] }
            return fields["kind"] as? [String] ?? []
        }
    }

    /// The finder's kinds in the scenarios' words: their `add_to_routine` is any suggestion on an
    /// existing routine ("e.g. to give it a run time"), so a run time is one.
    static func kind(_ kind: HabitSuggestion.Kind) -> String {
        switch kind {
        case .newRoutine: "routine"
        case .addToRoutine, .runAt: "add_to_routine"
        case .maxOn: "max_on"
        case .rule: "sequence"
        case .mode: "mode"
        }
    }

    /// Minutes between two "HH:MM" on the 24-hour circle.
    static func minutesApart(_ a: String, _ b: String) -> Int? {
        func minutes(_ t: String) -> Int? {
            let p = t.split(separator: ":").compactMap { Int($0) }
            return p.count == 2 ? p[0] * 60 + p[1] : nil
        }
        guard let x = minutes(a), let y = minutes(b) else { return nil }
        let d = abs(x - y) % 1440
        return min(d, 1440 - d)
    }

    static func matches(_ s: HabitSuggestion, _ e: Entry, calendar: HouseCalendar) -> Bool {
        let r = s.record(calendar: calendar)
        let f = e.fields
        if !e.kinds.isEmpty && !e.kinds.contains(Self.kind(s.kind)) { return false }
        if let device = f["device"] as? String, !r.devices.contains(device) { return false }
        // A sequence's devices in their order, a mode's as a set.
        if let devices = f["devices"] as? [String], s.kind == .mode ? Set(r.devices) != Set(devices) : r.devices != devices { return false }
        if let mode = f["mode"] as? String, r.mode != mode { return false }
        if let routine = f["routine"] as? String, s.kind == .addToRoutine, r.routine != routine { return false }
        if let action = f["action"] as? String, case .timeOfDay(.device(_, let a), _, _, _) = s.habit.pattern, a.rawValue != action { return false }
        if let days = f["days"] {
            guard let got = r.days?.lowercased() else { return false }
            let want = (days as? String) ?? (days as? [String])?.joined(separator: ", ") ?? ""
            if got != want.lowercased() { return false }
        }
        if let around = f["around"] as? String {
            let tolerance = f["tolerance_minutes"] as? Int ?? 30
            guard let at = r.evidence.median ?? r.window?.from, let apart = minutesApart(at, around), apart <= tolerance else { return false }
        }
        if let minutes = f["duration_minutes"] as? Int {
            guard case .duration(_, let upTo) = s.habit.pattern else { return false }
            let tolerance = f["duration_tolerance_minutes"] as? Int ?? 10
            if abs(Int(upTo.components.seconds) / 60 - minutes) > tolerance { return false }
        }
        return true
    }

    @Test func blindScenarios() throws {
        let configuration = try HouseFixtures.exampleConfiguration()
        let calendar = HouseCalendar(house: configuration.house)
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder).filter { $0.hasSuffix(".expected.json") }.sorted()
        #expect(names.count >= 8)
        var found = 0, wanted = 0, falseSuggestions: [String] = []
        for name in names {
            let scenario = String(name.dropLast(".expected.json".count))
            let expected = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(Self.folder)/\(name)"))) as? [String: Any])
            let text = try String(contentsOfFile: "\(Self.folder)/\(scenario).jsonl", encoding: .utf8)
            let history = HabitHistory.read(text, file: scenario, configuration: configuration)
            #expect(!history.diagnostics.contains { $0.severity == .error }, "\(scenario): \(history.diagnostics)")
            for unknown in expected["unknown_devices"] as? [String] ?? [] {
                #expect(history.diagnostics.contains { $0.message.contains(unknown) }, "\(scenario): \(unknown) reported")
            }
            let now = try #require(WallInstant(iso8601: expected["now"] as? String ?? "")?.date)
            let suggestions = configuration.habitSuggestions(from: history.events, now: now)
            #expect(configuration.habitSuggestions(from: history.events.reversed(), now: now).map(\.id) == suggestions.map(\.id), "\(scenario): the same")
            if let most = expected["max_suggestions"] as? Int, suggestions.count > most {
                falseSuggestions += suggestions.map { "\(scenario): \($0.text)" }
            }
            for entry in (expected["must_not_find"] as? [[String: Any]] ?? []).map(Entry.init) {
                for s in suggestions where Self.matches(s, entry, calendar: calendar) { falseSuggestions.append("\(scenario): \(s.text)") }
            }
            for entry in (expected["must_find"] as? [[String: Any]] ?? []).map(Entry.init) {
                wanted += 1
                let matching = suggestions.filter { Self.matches($0, entry, calendar: calendar) }
                if let most = entry.fields["max_matches"] as? Int, matching.count > most {
                    falseSuggestions.append("\(scenario): \(matching.count) suggestions for one habit \(entry.fields)")
                }
                if entry.fields["needs_confirmation"] as? Bool == true, let s = matching.first {
                    #expect(!s.confirmNotes.isEmpty, "\(scenario): \(s.text) says it needs a yes")
                }
                if !matching.isEmpty { found += 1 } else { print("habit scenarios: \(scenario): not found: \(entry.fields)") }
            }
        }
        print("habit scenarios: \(found) of \(wanted) habits found, \(falseSuggestions.count) false suggestions")
        #expect(falseSuggestions.isEmpty, "\(falseSuggestions)")
        // Today's figure (see docs/BENCHMARKS.md); a change that finds fewer fails here.
        #expect(found >= Self.floor, "\(found) of \(wanted)")
    }

    static let floor = 12
}
