import Foundation
import Testing
@testable import HouseCore

@Suite("The default English phrase set")
struct PhraseDefaultSetTests {
    /// Every template of config/phrases.yaml: its generated examples match, and that template is
    /// among the matches.
    @Test func everyTemplateMatchesItsOwnExamples() throws {
        let matcher = PhraseFixture.matcher
        let sampler = try PhraseSampler(phraseSet: matcher.phraseSet, lists: matcher.lists)
        var templates = 0
        for group in matcher.phraseSet.groups {
            for sentence in group.sentences {
                templates += 1
                let examples = sampler.expansions(of: sentence, limit: 12)
                #expect(!examples.isEmpty, "\(sentence) generates no example")
                for words in examples {
                    let ids = words.map { matcher.automaton.vocabulary[$0] ?? -1 }
                    let matches = matcher.match(ids: ids, words: words)
                    #expect(matches.contains { $0.template == sentence && $0.intentName == group.intent },
                            "\"\(words.joined(separator: " "))\" not matched by its template \(sentence)")
                    #expect(matches.allSatisfy { $0.intent != nil }, "\(words) gives an untyped intent")
                }
            }
        }
        #expect(templates >= 40)
    }

    static let table: [(String, HouseIntent)] = [
        // devices, room before or after, singular and plural
        ("turn on the kettle", .control(.init(action: .on, device: "kettle"))),
        ("switch off the bedside lamp", .control(.init(action: .off, device: "bedside lamp"))),
        ("turn off the lamp in the master bedroom", .control(.init(room: "master bedroom", action: .off, device: "lamp"))),
        ("Kitchen light on, please", .control(.init(room: "Kitchen", action: .on, device: "light"))),
        ("turn the TV off", .control(.init(action: .off, device: "tv"))),
        ("the heater in the study off", .control(.init(room: "study", action: .off, device: "heater"))),
        ("turn on all the lights", .control(.init(action: .on, device: "light", plural: true, wholeHouse: true))),
        ("turn off every light in the hall", .control(.init(room: "Hall", action: .off, device: "light", plural: true, wholeHouse: true))),
        ("lights off", .control(.init(action: .off, device: "light", plural: true))),
        ("switch the lounge lights on", .control(.init(room: "lounge", action: .on, device: "light", plural: true))),
        ("turn off everything in the living room", .control(.init(room: "Living Room", action: .off, plural: true))),
        ("turn everything off", .control(.init(action: .off, plural: true, wholeHouse: true))),
        ("toggle the hall light", .control(.init(room: "Hall", action: .toggle, device: "light"))),
        ("toggle all the lights in the kitchen", .control(.init(room: "Kitchen", action: .toggle, device: "light", plural: true, wholeHouse: true))),
        ("open the garage door", .control(.init(action: .open, device: "garage door"))),
        ("shut the garage door", .control(.init(action: .close, device: "garage door"))),
        // modes
        ("night mode", .setMode(.init(mode: "night"))),
        ("set away mode for two hours", .setMode(.init(mode: "away", duration: .seconds(7200)))),
        ("turn on bedtime mode for 8 hours", .setMode(.init(mode: "bedtime", duration: .seconds(8 * 3600)))),
        ("set the house to away for two hours", .setMode(.init(mode: "away", duration: .seconds(7200)))),
        ("put the house into night mode for an hour and a half", .setMode(.init(mode: "night", duration: .seconds(5400)))),
        ("cinema mode in the lounge", .setMode(.init(mode: "cinema", rooms: ["lounge"]))),
        ("I'm out for 1h30", .setMode(.init(mode: "away", duration: .seconds(5400)))),
        ("We are out for 90 minutes.", .setMode(.init(mode: "away", duration: .seconds(5400)))),
        ("nobody's home", .setMode(.init(mode: "away"))),
        ("we're back", .setMode(.init(mode: "home"))),
        // state questions
        ("which lights are on?", .query(.init(queryType: .deviceStates, device: "light", plural: true))),
        ("what's on in the kitchen?", .query(.init(queryType: .deviceStates, room: "Kitchen"))),
        ("what is on right now", .query(.init(queryType: .deviceStates))),
        ("is the heater on", .query(.init(queryType: .deviceStates, device: "heater"))),
        ("are the lights on in the hallway", .query(.init(queryType: .deviceStates, room: "hallway", device: "light", plural: true))),
        // floors, covers, the speaker's room, power
        ("turn off the upstairs lights", .control(.init(floor: "upstairs", action: .off, device: "light", plural: true))),
        ("lights off on the ground floor", .control(.init(floor: "Ground floor", action: .off, device: "light", plural: true))),
        ("is anything on downstairs", .query(.init(queryType: .deviceStates, floor: "downstairs"))),
        ("night mode upstairs", .setMode(.init(mode: "night", floor: "upstairs"))),
        ("night mode in here", .setMode(.init(mode: "night", here: true))),
        ("what's on in here", .query(.init(queryType: .deviceStates, here: true))),
        ("how much power is the house using right now", .query(.init(queryType: .power))),
        ("set the kitchen and the hall to night mode", .setMode(.init(mode: "night", rooms: ["Kitchen", "Hall"]))),
        ("turn it off", .control(.init(action: .off))),
        ("what's the status of the kettle", .query(.init(queryType: .deviceStates, device: "kettle"))),
        ("status of the garage", .query(.init(queryType: .deviceStates, room: "Garage"))),
        ("what mode is the house in", .query(.init(queryType: .mode))),
        // energy
        ("how much energy did we use today", .query(.init(queryType: .energy, timeRange: .today))),
        ("how much electricity did we use yesterday", .query(.init(queryType: .energy, timeRange: .yesterday))),
        ("how much power have we used this week", .query(.init(queryType: .energy, timeRange: .thisWeek))),
        ("how much energy did we use in the last 6 hours", .query(.init(queryType: .energy, timeRange: .lastHours(6)))),
        ("how much energy did we use over the past twenty four hours", .query(.init(queryType: .energy, timeRange: .lastHours(24)))),
        ("how much energy did we use in the last hour", .query(.init(queryType: .energy, timeRange: .lastHours(1)))),
        ("energy usage so far today", .query(.init(queryType: .energy, timeRange: .today))),
        // routines
        ("Good night house", .runRoutine(.init(routine: "Good night house"))),
        ("run the routine good morning house", .runRoutine(.init(routine: "Good morning house"))),
    ]

    @Test(arguments: table.indices)
    func sentenceGivesItsIntent(_ index: Int) {
        let (text, intent) = Self.table[index]
        let result = PhraseFixture.matcher.interpret(text)
        #expect(result.intents == [intent], "\(text)")
        #expect(result.commands.allSatisfy { !$0.isAmbiguous }, "\(text) is ambiguous")
    }

    @Test func handWrittenBenchmarkSentencesAreUnderstood() throws {
        let url = PhraseFixture.phrasesURL.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("bench/phrases/natural.txt")
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        #expect(lines.count >= 30)
        for line in lines {
            #expect(!PhraseFixture.matcher.interpret(String(line)).commands.isEmpty, "\(line)")
        }
    }
}
