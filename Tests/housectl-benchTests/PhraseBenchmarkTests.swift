import Foundation
import HouseTesting
import Testing
@testable import housectl_bench

/// The phrase benchmark's own parts: the corpus, the hassil export and reading hassil's answers.
@Suite struct PhraseBenchmarkTests {
    let matcher = PhraseFixtures.matcher

    @Test func corpusIsReproducibleAndUnderstood() throws {
        let a = try PhraseBenchmark.corpus(matcher: matcher, perTemplate: 3, seed: 1)
        let b = try PhraseBenchmark.corpus(matcher: matcher, perTemplate: 3, seed: 1)
        #expect(a == b)
        #expect(a.count == matcher.phraseSet.groups.reduce(0) { $0 + $1.sentences.count } * 3)
        for sentence in a { #expect(matcher.bestMatch(sentence) != nil, "\(sentence)") }
        let m = PhraseBenchmark.measure(matcher: matcher, sentences: a, minimumSeconds: 0)
        #expect(m.sentences == a.count && m.matched == a.count)
    }

    @Test func hassilExportIsAnIntentsFileWithEveryList() throws {
        let data = try PhraseBenchmark.hassilExport(matcher: matcher)
        let file = try JSONDecoder().decode(HassilIntents.self, from: data)
        for name in ["room", "device", "devices", "mode", "routine", "action", "time_range", "number", "duration"] {
            #expect(file.lists[name] != nil, "\(name)")
        }
        #expect(file.intents.keys.sorted() == ["HouseControl", "QueryHouseStatus", "RunRoutine", "SetHouseMode"])
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"expansion_rules\"") && text.contains("\"skip_words\""))
    }

    @Test func hassilAnswersAreReadAndCompared() throws {
        let answers = try PhraseBenchmark.readAnswers(Data("""
            {"text": "lights off", "intent": "HouseControl", "slots": {"action": "off", "device": "light", "plural": "true"}}
            {"text": "night mode", "intent": null, "slots": {}}
            """.utf8))
        #expect(answers.count == 2 && answers[1].intent == nil)
        let c = PhraseBenchmark.compare(matcher: matcher, with: answers)
        #expect(c.bothMatched == 1 && c.same == 1 && c.onlyOurs == 1 && c.onlyHassil == 0)
    }

    @Test func schedulerBenchmarkTakesEveryRunOfTheYear() {
        let r = SchedulerBenchmark.run(routineCount: 8, year: 2026)
        #expect(r.routineCount == 8 && r.runs > 8)
    }
}
