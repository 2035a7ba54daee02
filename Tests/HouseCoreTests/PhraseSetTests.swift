import Foundation
import Testing
@testable import HouseCore

@Suite("Phrase files (hassil YAML)")
struct PhraseSetTests {
    static let yaml = """
        language: en
        intents:
          HouseControl:
            data:
              - sentences:
                  - "<turn> {action} [the] {device}"
                slots:
                  plural: "false"
              - sentences:
                  - "blast [the] {device}"
                slots:
                  action: on
        lists:
          action:
            values:
              - "on"
              - in: "off"
                out: "off"
              - in: "out"
                out: "off"
          level:
            range:
              from: 1
              to: 3
        expansion_rules:
          turn: "(turn|switch)"
        skip_words: ["please"]
        wake_words: ["hey fan"]
        """

    @Test func loadsIntentsListsRulesAndFixedSlots() throws {
        let set = try PhraseSet.parse(yaml: Self.yaml)
        #expect(set.language == "en")
        #expect(set.groups.count == 2)
        #expect(set.groups[1].slots == ["action": "on"]) // an unquoted YAML `on` stays the text "on"
        #expect(set.lists["action"]?.values == [
            PhraseListValue(spoken: "on", value: "on"), PhraseListValue(spoken: "off", value: "off"),
            PhraseListValue(spoken: "out", value: "off"),
        ])
        #expect(set.lists["level"]?.values.map(\.value) == ["1", "2", "3"])
        #expect(set.expansionRules["turn"] == "(turn|switch)")
        #expect(set.skipWords == ["please"])
        #expect(set.wakeWords == ["hey fan"])
    }

    @Test func fixedSlotsAndInOutValuesReachTheIntent() throws {
        let set = try PhraseSet.parse(yaml: Self.yaml)
        let matcher = try PhraseMatcher(phraseSet: set, lists: ["device": PhraseList(values: [PhraseListValue(spoken: "fan", value: "Fan")])])
        #expect(matcher.interpret("blast the fan please").intents == [.control(HouseControlIntent(action: .on, device: "Fan"))])
        #expect(matcher.interpret("switch out fan").intents == [.control(HouseControlIntent(action: .off, device: "Fan"))])
    }

    @Test func userFileExtendsTheDefaultOne() throws {
        let base = try PhraseSet.parse(yaml: Self.yaml)
        let mine = try PhraseSet.parse(yaml: """
            intents:
              RunRoutine:
                data:
                  - sentences: ["party time"]
                    slots: {routine: party}
            """)
        let merged = base.merging(mine)
        #expect(merged.groups.count == 3)
        let matcher = try PhraseMatcher(phraseSet: merged, lists: ["device": PhraseList(values: [])])
        #expect(matcher.interpret("Party time!").intents == [.runRoutine(RunRoutineIntent(routine: "party"))])
    }

    @Test func errorsSayFileLineAndWhat() {
        do {
            _ = try PhraseSet.parse(yaml: "intents:\n  X:\n    data:\n      - sentences: [\"turn (on\"]\n", source: "my.yaml")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.hasPrefix("my.yaml:4:"))
            #expect(error.description.contains("missing ')'"))
        }
        #expect(throws: PhraseError.self) { try PhraseSet.parse(yaml: "colours: [red]") }
        #expect(throws: PhraseError.self) { try PhraseSet.parse(yaml: "intents:\n  X:\n    data:\n      - slots: {a: b}\n") }
        #expect(throws: PhraseError.self) { try PhraseSet.parse(yaml: "lists:\n  l: {range: {from: 5, to: 1}}\n") }
        #expect(throws: PhraseError.self) { try PhraseSet.parse(yaml: "intents: [") }
    }

    @Test func compileErrorsNameTheMissingListOrRule() {
        let unknownList = PhraseSet(groups: [PhraseTemplateGroup(intent: "X", sentences: ["turn on {gadget}"])])
        #expect(throws: PhraseError.unknownList(name: "gadget", template: "turn on {gadget}")) {
            try PhraseMatcher(phraseSet: unknownList, lists: [:])
        }
        let unknownRule = PhraseSet(groups: [PhraseTemplateGroup(intent: "X", sentences: ["<nope> on"])])
        #expect(throws: PhraseError.unknownRule(name: "nope", template: "<nope> on")) {
            try PhraseMatcher(phraseSet: unknownRule, lists: [:])
        }
        let loop = PhraseSet(groups: [PhraseTemplateGroup(intent: "X", sentences: ["<a>"])], expansionRules: ["a": "x <b>", "b": "<a>"])
        #expect(throws: PhraseError.self) { try PhraseMatcher(phraseSet: loop, lists: [:]) }
    }

    @Test func missingFileIsAClearError() {
        #expect(throws: PhraseError.self) { try PhraseSet.load(contentsOf: URL(fileURLWithPath: "/nonexistent/phrases.yaml")) }
    }
}
