import Foundation
import Testing
@testable import HouseCore
import HouseTesting

@Suite("Phrase matcher behaviour")
struct PhraseMatcherTests {
    @Test func aNameThatIsBothARoomAndADeviceIsAQuestion() throws {
        let result = PhraseFixture.matcher.interpret("turn off the office")
        let command = try #require(result.commands.first)
        #expect(command.isAmbiguous)
        let tied = command.tied.compactMap(\.intent)
        #expect(tied.count == 2)
        #expect(tied.contains(.control(HouseControlIntent(action: .off, device: "office"))))
        #expect(tied.contains(.control(HouseControlIntent(room: "Office", action: .off, plural: true))))
        let question = try #require(command.disambiguationQuestion)
        #expect(question.contains("turn off office"))
        #expect(question.contains("turn off everything in Office"))
    }

    @Test func noMatchGivesTheClosestPhrases() throws {
        let result = PhraseFixture.matcher.interpret("turn of the kettle")
        guard case .noMatch(let text, let suggestions) = result else {
            Issue.record("expected no match, got \(result)")
            return
        }
        #expect(text == "turn of the kettle")
        #expect(suggestions.count == 3)
        // the user's own device name is kept in the closest phrase
        #expect(suggestions.first == "turn on the kettle")
        guard case .noMatch(_, let nearDuration) = PhraseFixture.matcher.interpret("we're gone for 2 hours") else {
            Issue.record("expected no match")
            return
        }
        #expect(nearDuration.first == "we're out for 2 hours")
        let message = try #require(result.message)
        #expect(message.contains("I don't understand \"turn of the kettle\""))
        #expect(message.contains("Closest phrases I know"))
        #expect(PhraseFixture.matcher.interpret("   ?! ").message == "Nothing to understand. Closest phrases I know: " +
                PhraseFixture.matcher.suggestions(for: "").map { "\"\($0)\"" }.joined(separator: ", ") + ".")
    }

    /// Suggestions are about what was said, and make sense in the house.
    @Test func suggestionsKeepTheDeviceOrVerbAndMakeSense() throws {
        let matcher = PhraseFixture.matcher
        // Nothing of the house and no verb it knows: no house phrases offered.
        #expect(matcher.suggestions(for: "what's the weather like tomorrow") == [])
        // A device named: every suggestion keeps it.
        let kettle = matcher.suggestions(for: "kettle boil")
        #expect(!kettle.isEmpty && kettle.allSatisfy { $0.contains("kettle") }, "\(kettle)")
        // Never an action the device cannot do, nor a device the room does not have.
        for text in ["open the lamp in the kitchen", "garage lamp open wide"] {
            for suggestion in matcher.suggestions(for: text, limit: 5) {
                #expect(matcher.isSensible(suggestion), "\(text) -> \(suggestion)")
                #expect(!suggestion.hasPrefix("open the lamp") && !suggestion.hasPrefix("open lamp"), "\(text) -> \(suggestion)")
            }
        }
        #expect(!matcher.isSensible("open the kitchen light"), "a light does not open")
        #expect(matcher.isSensible("turn on the kitchen light"))
    }

    @Test func andSplitsCommandsButNotNamesOrDurations() throws {
        let three = PhraseFixture.intents("turn on the kettle and lights off and night mode")
        #expect(three == [
            .control(HouseControlIntent(action: .on, device: "kettle")),
            .control(HouseControlIntent(action: .off, device: "light", plural: true)),
            .setMode(SetHouseModeIntent(mode: "night")),
        ])
        #expect(PhraseFixture.intents("set the house to away for an hour and a half") == [
            .setMode(SetHouseModeIntent(mode: "away", duration: .seconds(5400))),
        ])
        var house = PhraseFixtures.sampleHouse
        house.rooms.append(Room(id: "bnb", name: "Bed and Breakfast"))
        let matcher = try PhraseMatcher(phraseSet: PhraseFixture.matcher.phraseSet, house: house)
        #expect(matcher.interpret("turn off the lights in the bed and breakfast").intents == [
            .control(HouseControlIntent(room: "Bed and Breakfast", action: .off, device: "light", plural: true)),
        ])
        // a part that only makes sense with the start of the one before
        let borrowed = PhraseFixture.matcher.interpret("turn off the kettle and the tv and the lights in the hall")
        #expect(borrowed.intents == [
            .control(HouseControlIntent(action: .off, device: "kettle")),
            .control(HouseControlIntent(action: .off, device: "tv")),
            .control(HouseControlIntent(room: "Hall", action: .off, device: "light", plural: true)),
        ])
        #expect(borrowed.commands.map(\.text) == ["turn off the kettle", "turn off the tv", "turn off the lights in the hall"])
        // one understood part and one not: no silent half-execution
        if case .commands = PhraseFixture.matcher.interpret("turn on the kettle and fly to the moon") {
            Issue.record("half-understood text must not match")
        }
    }

    /// What people add around a command: a wake word first, politeness and fillers anywhere.
    @Test func wakeWordsAndFillersAreDroppedButNeverFromANameOrTheMiddle() throws {
        let kettleOn: [HouseIntent] = [.control(HouseControlIntent(action: .on, device: "kettle"))]
        for text in ["ok house, turn on the kettle", "computer turn on the kettle", "house, turn on the kettle",
                     "i'd like the kettle on please", "would you mind turning on the kettle", "just turn on my kettle",
                     "turn on the kettle now, thank you", "kindly go ahead and turn on the kettle for me"] {
            #expect(PhraseFixture.intents(text) == kettleOn, "\(text)")
        }
        // A wake word counts only at the start, and the routine whose name ends in "house" keeps it.
        #expect(PhraseFixture.matcher.words("turn on the kettle computer") == ["turn", "on", "the", "kettle", "computer"])
        #expect(PhraseFixture.matcher.words("house") == ["house"])
        #expect(PhraseFixture.matcher.words("ok good morning house") == ["good", "morning", "house"])
        // A skip word inside a name of the house stays.
        var house = PhraseFixtures.sampleHouse
        house.devices.append(Device(id: "just-lamp", room: "hall", kind: .light, names: ["just lamp"]))
        let matcher = try PhraseMatcher(phraseSet: PhraseFixture.matcher.phraseSet, house: house)
        #expect(matcher.words("please turn on the just lamp now") == ["turn", "on", "the", "just", "lamp"])
        #expect(matcher.interpret("turn on the just lamp").intents == [.control(HouseControlIntent(action: .on, device: "just lamp"))])
    }

    @Test func aRoomsPossessiveIsTheRoom() {
        #expect(PhraseFixture.intents("turn on the kitchen's light") == [
            .control(HouseControlIntent(room: "Kitchen", action: .on, device: "light")),
        ])
        #expect(PhraseFixture.intents("turn off the lounge's big light") == [
            .control(HouseControlIntent(room: "lounge", action: .off, device: "big light")),
        ])
    }

    /// "turn off the lamp and the tv in the living room": the place said once is both parts'
    /// when the first would otherwise have to ask which one; a part that is clear keeps its own.
    @Test func aPlaceSaidAtTheEndOfAnAndIsSharedWhereItIsNeeded() {
        #expect(PhraseFixture.intents("turn off the light and the tv in the living room") == [
            .control(HouseControlIntent(room: "Living Room", action: .off, device: "light")),
            .control(HouseControlIntent(room: "Living Room", action: .off, device: "tv")),
        ])
        #expect(PhraseFixture.intents("turn off the kettle and the light in the hall") == [
            .control(HouseControlIntent(action: .off, device: "kettle")),
            .control(HouseControlIntent(room: "Hall", action: .off, device: "light")),
        ])
    }

    @Test func listValuesAreTheConfiguredNames() {
        #expect(PhraseFixture.intents("turn off the light in the living room") == [
            .control(HouseControlIntent(room: "Living Room", action: .off, device: "light")),
        ])
        #expect(PhraseFixture.intents("turn on the office fan") == [.control(HouseControlIntent(action: .on, device: "office-fan"))])
    }

    @Test func houseWithoutRoutinesOrModesStillCompiles() throws {
        let house = HouseConfiguration(house: PhraseFixtures.sampleHouse.house)
        let matcher = try PhraseMatcher(phraseSet: PhraseFixture.matcher.phraseSet, house: house)
        #expect(matcher.interpret("we're out for two hours").intents == [.setMode(SetHouseModeIntent(mode: "away", duration: .seconds(7200)))])
        #expect(matcher.interpret("turn on the kettle").commands.isEmpty)
    }

    /// A backtracking matcher would not finish these in a lifetime; the time limit only turns
    /// such a hang into a failure (speed itself is measured by the phrase benchmark).
    @Test(.timeLimit(.minutes(1))) func pathologicalTemplatesStayLinear() throws {
        // 40 nested optionals over the same word: a backtracking matcher explores 2^40 paths.
        let template = String(repeating: "[a] ", count: 40) + "b"
        let set = PhraseSet(groups: [PhraseTemplateGroup(intent: "X", sentences: [template, String(repeating: "[{l}] ", count: 20) + "c"])])
        let matcher = try PhraseMatcher(phraseSet: set, lists: ["l": PhraseList(values: [PhraseListValue(spoken: "a", value: "A"), PhraseListValue(spoken: "a a", value: "AA")])])
        let input = String(repeating: "a ", count: 40)
        #expect(matcher.interpret(input + "b").commands.count == 1)
        #expect(matcher.interpret(input + "x", suggest: false).commands.isEmpty)
        #expect(matcher.interpret(String(repeating: "a ", count: 20) + "c").commands.count == 1)
    }

    @Test func absurdNumbersAreNotUnderstoodRatherThanCrashing() {
        #expect(PhraseFixture.matcher.interpret("we're out for 99999999999999999999h").commands.isEmpty)
        #expect(PhraseFixture.matcher.interpret("we're out for 9999999999999 hours").commands.isEmpty)
        #expect(PhraseFixture.matcher.interpret("how much energy did we use in the last 0 hours").intents.isEmpty)
    }

    @Test(.timeLimit(.minutes(1))) func manyAndsAreSplitWithoutBlowingUp() {
        let text = "turn off the kettle" + String(repeating: " and the x", count: 60)
        #expect(PhraseFixture.matcher.interpret(text, suggest: false).commands.isEmpty)
        let fine = "turn off the tv" + String(repeating: " and the kettle", count: 60)
        #expect(PhraseFixture.matcher.interpret(fine, suggest: false).commands.count == 61)
    }

    @Test func tooLongTextIsRefusedNotMatchedSlowly() {
        let text = String(repeating: "lights off ", count: PhraseMatcher.maxWords)
        #expect(PhraseFixture.matcher.interpret(text).commands.isEmpty)
    }
}
