import Foundation
import HouseCore

/// Measures the phrase matcher (phrases per second) on a corpus generated from the templates plus
/// hand-written sentences, and prepares the same templates, lists and corpus for Home Assistant's
/// hassil so both can be compared in one run (see `bench/phrases/run.sh`).
enum PhraseBenchmark {
    /// Sentences generated from every template (`perTemplate` random expansions each, reproducible
    /// from `seed`), followed by `natural` hand-written ones.
    static func corpus(matcher: PhraseMatcher, perTemplate: Int, seed: UInt64, natural: [String] = []) throws(PhraseError) -> [String] {
        let sampler = try PhraseSampler(phraseSet: matcher.phraseSet, lists: matcher.lists)
        var random = SeededJitterGenerator(seed: seed)
        var sentences: [String] = []
        for group in matcher.phraseSet.groups {
            for sentence in group.sentences {
                for _ in 0..<perTemplate {
                    // "": a template this house cannot say.
                    let said = sampler.random(of: sentence, using: &random)
                    if !said.isEmpty { sentences.append(said) }
                }
            }
        }
        return sentences + natural
    }

    /// The phrase set with every list filled in (house lists, and the built-in number and duration
    /// lists spelled out), as a hassil intents file (JSON, which is YAML).
    static func hassilExport(matcher: PhraseMatcher) throws -> Data {
        var intents: [String: HassilIntents.Intent] = [:]
        for group in matcher.phraseSet.groups {
            let entry = HassilIntents.Entry(sentences: group.sentences, slots: group.slots.isEmpty ? nil : group.slots)
            intents[group.intent, default: HassilIntents.Intent(data: [])].data.append(entry)
        }
        func list(_ values: [PhraseListValue]) -> HassilIntents.List {
            HassilIntents.List(values: values.map { HassilIntents.ListValue(in: $0.spoken, out: $0.value) })
        }
        var lists = matcher.lists.mapValues { list($0.values) }
        lists["number"] = list(spelledNumbers())
        lists["duration"] = list(spelledDurations())
        let document = HassilIntents(language: matcher.phraseSet.language, intents: intents, lists: lists,
                                     expansionRules: matcher.phraseSet.expansionRules,
                                     // hassil has no wake words: they are skip words there.
                                     skipWords: matcher.phraseSet.skipWords + matcher.phraseSet.wakeWords)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document)
    }

    static let numberWords = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                              "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
    static let tensWords = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

    static func words(_ n: Int) -> String {
        if n < 20 { return numberWords[n] }
        return n % 10 == 0 ? tensWords[n / 10] : "\(tensWords[n / 10]) \(numberWords[n % 10])"
    }

    static func spelledNumbers() -> [PhraseListValue] {
        (0...99).flatMap { [PhraseListValue(spoken: String($0), value: String($0)), PhraseListValue(spoken: words($0), value: String($0))] }
    }

    static func spelledDurations() -> [PhraseListValue] {
        var out: [PhraseListValue] = []
        func add(_ spoken: String, _ seconds: Int) { out.append(PhraseListValue(spoken: spoken, value: String(seconds))) }
        for h in 1...24 {
            let unit = h == 1 ? "hour" : "hours"
            add("\(h) \(unit)", h * 3600); add("\(words(h)) \(unit)", h * 3600); add("\(h)h", h * 3600)
            add("\(h)h30", h * 3600 + 1800); add("\(words(h)) \(unit) and a half", h * 3600 + 1800)
            add("\(h) \(unit) 30 minutes", h * 3600 + 1800)
        }
        for m in [1, 2, 5, 10, 15, 20, 25, 30, 40, 45, 50, 60, 90, 120] {
            let unit = m == 1 ? "minute" : "minutes"
            add("\(m) \(unit)", m * 60); add("\(words(m % 100)) \(unit)", m * 60); add("\(m)m", m * 60)
        }
        for d in 1...7 { add("\(d) \(d == 1 ? "day" : "days")", d * 86400); add("\(words(d)) \(d == 1 ? "day" : "days")", d * 86400) }
        add("an hour", 3600); add("a day", 86400); add("a minute", 60)
        add("half an hour", 1800); add("a half hour", 1800); add("an hour and a half", 5400)
        add("an hour and fifteen minutes", 4500); add("a couple of hours", 7200)
        return out
    }

    /// How fast the matcher went.
    struct Measurement: Sendable {
        var sentences: Int
        var matched: Int
        var seconds: Double
        /// The fastest single pass over the corpus, in seconds (the least disturbed by other load).
        var bestPass: Double
        /// Mean sentences per second over all passes.
        var rate: Double { Double(sentences) / seconds }
        /// Sentences per second of the fastest pass.
        var bestRate: Double
        /// The 99th percentile of one sentence's time, in microseconds: each sentence timed on
        /// its own over three passes, its fastest time kept (the least disturbed by other load).
        var p99Microseconds: Double = 0
    }

    /// Interprets the corpus repeatedly for at least `minimumSeconds` (no suggestions on misses, as
    /// hassil does not make any) and reports sentences per second.
    static func measure(matcher: PhraseMatcher, sentences: [String], minimumSeconds: Double = 2) -> Measurement {
        guard !sentences.isEmpty else { return Measurement(sentences: 0, matched: 0, seconds: 1, bestPass: 1, bestRate: 0) }
        let clock = ContinuousClock()
        func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
        var done = 0
        var matched = 0
        let start = clock.now
        var elapsed = 0.0
        var best = Double.infinity
        repeat {
            let passStart = clock.now
            for s in sentences where !matcher.interpret(s, suggest: false).commands.isEmpty { matched += 1 }
            best = min(best, seconds(clock.now - passStart))
            done += sentences.count
            elapsed = seconds(clock.now - start)
        } while elapsed < minimumSeconds
        var fastest = [Double](repeating: .infinity, count: sentences.count)
        for _ in 0..<3 {
            for (index, sentence) in sentences.enumerated() {
                let before = clock.now
                _ = matcher.interpret(sentence, suggest: false)
                fastest[index] = min(fastest[index], seconds(clock.now - before))
            }
        }
        var measurement = Measurement(sentences: done, matched: matched, seconds: elapsed, bestPass: best,
                                      bestRate: Double(sentences.count) / max(best, 1e-9))
        measurement.p99Microseconds = percentile99(fastest) * 1e6
        return measurement
    }

    /// The 99th percentile (nearest rank) of `values`.
    static func percentile99(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
    }

    /// One answer of hassil's, as written by `bench/phrases/hassil_bench.py`: one JSON object per
    /// line, `{"text": ..., "intent": name or null, "slots": {...}}` (slot values as strings).
    struct Answer: Sendable, Equatable, Decodable {
        var text: String
        var intent: String?
        var slots: [String: String]
    }

    /// Reads hassil's answers file.
    static func readAnswers(_ data: Data) throws -> [Answer] {
        let decoder = JSONDecoder()
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            try decoder.decode(Answer.self, from: Data(line.utf8))
        }
    }

    /// Compares our best whole-text match with hassil's answer for each sentence.
    static func compare(matcher: PhraseMatcher, with answers: [Answer]) -> (bothMatched: Int, same: Int, onlyOurs: Int, onlyHassil: Int, differences: [String]) {
        var both = 0, same = 0, onlyOurs = 0, onlyHassil = 0
        var differences: [String] = []
        for answer in answers {
            let ours = matcher.bestMatch(answer.text)
            switch (ours, answer.intent) {
            case (nil, nil): continue
            case (.some, nil): onlyOurs += 1
            case (nil, .some): onlyHassil += 1
            case (.some(let o), .some(let h)):
                both += 1
                if o.intent == h && o.slots == answer.slots {
                    same += 1
                } else if differences.count < 10 {
                    differences.append("\"\(answer.text)\": ours \(o.intent) \(o.slots.sorted { $0.key < $1.key }), hassil \(h) \(answer.slots.sorted { $0.key < $1.key })")
                }
            }
        }
        return (both, same, onlyOurs, onlyHassil, differences)
    }
}
