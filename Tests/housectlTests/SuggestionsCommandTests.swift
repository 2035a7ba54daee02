import Foundation
import HouseCore
import HouseDaemon
import HouseTesting
import Testing
@testable import housectl

/// `housectl suggestions --from-history FILE`: text, JSON and YAML, and a file with bad lines.
@Suite struct SuggestionsCommandTests {
    let config = HouseFixtures.exampleConfigPath

    /// Runs the command on a history file holding `text`, removed afterwards.
    func run(_ text: String, _ args: [String] = []) throws -> CommandOutput {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString).jsonl").path
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        return try SuggestionsCommand.parse(["--from-history", file, "--config", config] + args).execute()
            .replacing(file, with: "history.jsonl")
    }

    func householdLines() throws -> String {
        let configuration = try HouseFixtures.exampleConfiguration()
        let simulator = HouseholdSimulator.example(configuration)
        return simulator.jsonLines(simulator.history(from: HouseholdSimulator.exampleStart, days: 56, habits: HouseholdSimulator.exampleHabits))
    }

    /// Without --from-history: what people did, from the controller's state database, gives the
    /// same suggestions as the same history in a file; a routine's commands are not people's.
    @Test func theStateDatabaseGivesTheSameSuggestionsAsItsHistoryInAFile() throws {
        let configuration = try HouseFixtures.exampleConfiguration()
        let simulator = HouseholdSimulator.example(configuration)
        let events = simulator.history(from: HouseholdSimulator.exampleStart, days: 56, habits: HouseholdSimulator.exampleHabits)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("suggestions-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try StateStore(path: directory + "/housectl.sqlite")
        for event in events {
            let did = switch event.subject {
            case .device(let id, let action): #"[{"action":"\#(action.rawValue)","device":"\#(id)"}]"#
            case .mode(let id): #"[{"mode":"\#(id)"}]"#
            case .routine(let id): #"[{"routine":"\#(id)"}]"#
            }
            try store.appendHistory(HistoryRecord(at: event.time, source: "cli", kind: "control", summary: "-", outcome: "done", dialog: "-", did: did))
        }
        // A routine's run is the house's doing, not a habit of its people.
        try store.appendHistory(HistoryRecord(at: events[0].time, source: "routine", kind: "control", summary: "-", outcome: "done",
                                              dialog: "-", did: #"[{"action":"on","device":"garden-pump"}]"#))
        try store.close()
        let fromStore = try SuggestionsCommand.parse(["--state-dir", directory, "--config", config, "--json"]).execute()
        #expect(fromStore.exitCode == 0, "\(fromStore.errors)")
        #expect(fromStore.text == (try run(try householdLines(), ["--json"])).text)
        let missing = try SuggestionsCommand.parse(["--state-dir", directory + "/nowhere", "--config", config]).execute()
        #expect(missing.exitCode == 1)
        #expect(missing.errors.contains("no state database at \(directory)/nowhere/housectl.sqlite"))
    }

    @Test func printsEachSuggestionWithItsEvidence() throws {
        let out = try run(try householdLines())
        #expect(out.exitCode == 0)
        #expect(out.errors.isEmpty)
        #expect(out.text.hasPrefix("1424 events up to 2026-04-20 03:50 BST (Europe/London).\n\n1. You "))
        #expect(out.text.contains(". You turn on the hall light around 06:3"))
        #expect(out.text.contains("   evidence: "))
        #expect(out.text.contains("; first seen 2026-02-2"))
        #expect(out.text.contains("give it max_on: 50m"))
        #expect(out.text.contains("): housectl suggestions accept|dismiss s-"))
    }

    @Test func jsonHasKindDaysWindowAndEvidence() throws {
        let out = try run(try householdLines(), ["--json"])
        #expect(out.exitCode == 0)
        let items = try #require(try JSONSerialization.jsonObject(with: Data(out.text.utf8)) as? [[String: Any]])
        #expect(items.count >= 10)
        let hall = try #require(items.first { ($0["devices"] as? [String]) == ["hall-light"] })
        #expect(hall["kind"] as? String == "add-to-routine")
        #expect(hall["routine"] as? String == "good-morning")
        #expect(hall["days"] as? String == "weekdays")
        let window = try #require(hall["window"] as? [String: String])
        #expect(window["from"]?.count == 5 && window["to"]?.count == 5)
        let evidence = try #require(hall["evidence"] as? [String: Any])
        #expect((evidence["occurrences"] as? Int ?? 0) >= 7)
        #expect((evidence["out_of"] as? Int ?? 0) >= (evidence["occurrences"] as? Int ?? 0))
        #expect((evidence["first_seen"] as? String)?.hasPrefix("2026-02-2") == true)
        #expect((hall["id"] as? String)?.hasPrefix("s-") == true)
        #expect(items.contains { $0["kind"] as? String == "max-on" && $0["duration"] as? String == "50m" })
    }

    @Test func yamlPrintsTheSnippets() throws {
        let out = try run(try householdLines(), ["--yaml"])
        #expect(out.exitCode == 0)
        #expect(out.text.contains("routines:\n  - id: office-desk-plug-on-weekday-mornings\n    shortcut: Office desk plug on weekday mornings\n"))
        #expect(out.text.contains("modes:\n  - id: morning\n    devices: {hall-light: ON}"))
    }

    @Test func badLinesAreReportedAndTheRestIsRead() throws {
        let out = try run("""
            {"time": "2026-03-02T06:47:12+00:00", "device": "kitchen-light", "action": "on"}
            {"time": "2026-03-02T06:50:00+00:00", "device": "attic-light", "action": "on"}
            {"time": "soon", "mode": "night"}
            """)
        #expect(out.exitCode == 1)
        #expect(out.errors == """
            history.jsonl:2: warning: unknown device 'attic-light'; line left out
            history.jsonl:3: error: "time" is 'soon'; expected an ISO 8601 time with its offset, e.g. "2026-03-02T06:47:12+00:00"
            """)
        #expect(out.text.hasPrefix("1 event up to 2026-03-02 06:47 GMT (Europe/London).\nNo suggestions: "))
    }

    /// `suggestions accept` and `dismiss` on a copy of the example house: the answer is written
    /// beside house.yaml, the listing leaves it out, and what cannot be done says why.
    @Test func acceptAndDismissThroughTheCommandLine() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("suggestions-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let house = directory + "/house.yaml", history = directory + "/history.jsonl"
        try FileManager.default.copyItem(atPath: config, toPath: house)
        try householdLines().write(toFile: history, atomically: true, encoding: .utf8)
        let args = ["--from-history", history, "--config", house, "--devices-dir", HouseFixtures.devicesDirectory]
        func run(_ words: [String]) throws -> CommandOutput {
            switch try Housectl.parseAsRoot(["suggestions"] + words + args) {
            case let c as SuggestionsAcceptCommand: return c.execute()
            case let c as SuggestionsDismissCommand: return c.execute()
            case let c as SuggestionsCommand: return c.execute()
            case let other: Issue.record("parsed as \(other)"); return CommandOutput(text: "", exitCode: 99)
            }
        }
        let items = try #require(try JSONSerialization.jsonObject(with: Data(try run(["--json"]).text.utf8)) as? [[String: Any]])
        let plug = try #require(items.first { $0["kind"] as? String == "new-routine" && ($0["devices"] as? [String]) == ["office-plug"] }?["id"] as? String)
        let hall = try #require(items.first { ($0["devices"] as? [String]) == ["hall-light"] }?["id"] as? String)

        let accepted = try run(["accept", plug])
        #expect(accepted.exitCode == 0, "\(accepted.errors)")
        #expect(accepted.text.hasPrefix("Accepted \(plug): You turn on the office desk plug around "))
        #expect(accepted.text.hasSuffix("Written to \(directory)/house.accepted.yaml; the controller runs it once it loads the configuration again (restart housectl serve)."))
        #expect(try String(contentsOfFile: house, encoding: .utf8) == String(contentsOfFile: config, encoding: .utf8))
        let file = try String(contentsOfFile: directory + "/house.accepted.yaml", encoding: .utf8)
        #expect(file.contains("routines:\n- id: office-desk-plug-on-weekday-mornings\n"))
        let dismissed = try run(["dismiss", hall])
        #expect(dismissed.exitCode == 0)
        #expect(dismissed.text.hasPrefix("Dismissed \(hall): You turn on the hall light"))
        let checked = try ConfigCheckCommand.parse([house, "--devices-dir", HouseFixtures.devicesDirectory]).execute()
        #expect(checked.text.hasPrefix("\(house): OK (with \(directory)/house.accepted.yaml: 1 accepted, 1 dismissed)\n"))
        let listed = try run([])
        #expect(listed.exitCode == 0)
        #expect(!listed.text.contains(plug) && !listed.text.contains(hall))
        #expect(listed.text.contains("housectl suggestions accept|dismiss s-"))

        let again = try run(["accept", plug])
        #expect(again.exitCode == 1)
        #expect(again.errors == "suggestion \(plug) was accepted already: what it suggested is in \(directory)/house.accepted.yaml")
        let unknown = try run(["dismiss", "s-nope"])
        #expect(unknown.exitCode == 1)
        #expect(unknown.errors.hasPrefix("no suggestion 's-nope' now; the suggestions now: s-"))
        #expect(throws: (any Error).self) { try Housectl.parseAsRoot(["suggestions", "accept"] + args) }
    }

    @Test func nowIsAnArgument() throws {
        let lines = try householdLines()
        let out = try run(lines, ["--now", "2026-03-01 12:00", "--json"])
        #expect(out.text == "[\n\n]" || out.text == "[]")
        #expect(try run(lines, ["--now", "tomorrow"]).errors.contains("--now: expected ISO 8601"))
        #expect(throws: (any Error).self) { try SuggestionsCommand.parse(["--config", config, "--now"]) }
    }
}

extension CommandOutput {
    /// The output with `text` replaced in both streams (a temporary file's name).
    func replacing(_ text: String, with other: String) -> CommandOutput {
        CommandOutput(text: self.text.replacingOccurrences(of: text, with: other), exitCode: exitCode,
                      errors: errors.replacingOccurrences(of: text, with: other))
    }
}
