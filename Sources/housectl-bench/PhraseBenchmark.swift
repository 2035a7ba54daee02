import Foundation

/// Measures the phrase matcher (phrases per second) on a corpus generated from the templates plus
/// hand-written sentences, and prepares the same templates, lists and corpus for Home Assistant's
/// hassil so both can be compared in one run (see `bench/phrases/run.sh`).
public enum PhraseBenchmark {
    /// A small example house (rooms, devices, modes, routines) the benchmark and tests use.
    public static let sampleHouse = HouseConfiguration(
        house: HouseInfo(name: "Home", timeZone: TimeZone(identifier: "Europe/London") ?? .gmt, latitude: 51.5, longitude: -0.12),
        floors: [
            Floor(id: "ground", name: "Ground floor", aliases: ["downstairs"]),
            Floor(id: "first", name: "First floor", aliases: ["upstairs"]),
        ],
        rooms: [
            Room(id: "bedroom", name: "Bedroom", aliases: ["master bedroom"], floor: "first"),
            Room(id: "kitchen", name: "Kitchen", floor: "ground"),
            Room(id: "living-room", name: "Living Room", aliases: ["lounge"], floor: "ground"),
            Room(id: "garage", name: "Garage"),
            Room(id: "hall", name: "Hall", aliases: ["hallway"], floor: "ground"),
            Room(id: "office", name: "Office", aliases: ["study"], floor: "first"),
        ],
        devices: [
            Device(id: "bedroom-light", room: "bedroom", kind: .light, names: ["light", "ceiling light"], watts: 40),
            Device(id: "bedroom-lamp", room: "bedroom", kind: .light, names: ["lamp", "bedside lamp"], watts: 10),
            Device(id: "kitchen-light", room: "kitchen", kind: .light, names: ["light"], watts: 60),
            Device(id: "kettle", room: "kitchen", kind: .plug, names: ["kettle"], watts: 2000),
            Device(id: "living-room-light", room: "living-room", kind: .light, names: ["light", "big light"], watts: 60),
            Device(id: "tv", room: "living-room", kind: .plug, names: ["tv", "television"], watts: 120),
            Device(id: "garage-door", room: "garage", kind: .door, names: ["garage door"], confirm: true),
            Device(id: "hall-light", room: "hall", kind: .light, names: ["light"], watts: 20),
            Device(id: "heater", room: "office", kind: .heater, names: ["heater", "radiator"], watts: 1500, confirm: true),
            // a device named like a room: "turn off the office" is a real ambiguity
            Device(id: "office-fan", room: "living-room", kind: .fan, names: ["office", "fan"], watts: 30),
        ],
        modes: [
            Mode(id: "night", names: ["night", "bedtime"]),
            Mode(id: "away", names: ["away"]),
            Mode(id: "home", names: ["home"]),
            Mode(id: "movie", names: ["movie", "cinema"], rooms: ["living-room"]),
            Mode(id: "morning", names: ["morning"]),
        ],
        routines: [
            Routine(id: "morning", shortcut: "Good morning house", intent: .mode("morning", duration: nil, rooms: [])),
            Routine(id: "night", shortcut: "Good night house", intent: .mode("night", duration: nil, rooms: [])),
        ]
    )

    /// Sentences generated from every template (`perTemplate` random expansions each, reproducible
    /// from `seed`), followed by `natural` hand-written ones.
    public static func corpus(matcher: PhraseMatcher, perTemplate: Int, seed: UInt64, natural: [String] = []) throws(PhraseError) -> [String] {
        let sampler = try PhraseSampler(phraseSet: matcher.phraseSet, lists: matcher.lists)
        var random = SplitMix64(seed: seed)
        var sentences: [String] = []
        for group in matcher.phraseSet.groups {
            for sentence in group.sentences {
                for _ in 0..<perTemplate { sentences.append(sampler.random(of: sentence, using: &random)) }
            }
        }
        return sentences + natural
    }

    /// The phrase set with every list filled in (house lists, and the built-in number and duration
    /// lists spelled out), as a hassil intents file (JSON, which is YAML).
    public static func hassilExport(matcher: PhraseMatcher) throws -> Data {
        var intents: [String: [String: [[String: Any]]]] = [:]
        for group in matcher.phraseSet.groups {
            var entry: [String: Any] = ["sentences": group.sentences]
            if !group.slots.isEmpty { entry["slots"] = group.slots }
            intents[group.intent, default: ["data": []]]["data"]!.append(entry)
        }
        var lists: [String: Any] = [:]
        for (name, list) in matcher.lists {
            lists[name] = ["values": list.values.map { ["in": $0.spoken, "out": $0.value] }]
        }
        lists["number"] = ["values": spelledNumbers().map { ["in": $0.spoken, "out": $0.value] }]
        lists["duration"] = ["values": spelledDurations().map { ["in": $0.spoken, "out": $0.value] }]
        let document: [String: Any] = [
            "language": matcher.phraseSet.language,
            "intents": intents,
            "lists": lists,
            "expansion_rules": matcher.phraseSet.expansionRules,
            "skip_words": matcher.phraseSet.skipWords,
        ]
        return try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
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
    public struct Measurement: Sendable {
        public var sentences: Int
        public var matched: Int
        public var seconds: Double
        /// The fastest single pass over the corpus, in seconds (the least disturbed by other load).
        public var bestPass: Double
        /// Mean sentences per second over all passes.
        public var rate: Double { Double(sentences) / seconds }
        /// Sentences per second of the fastest pass.
        public var bestRate: Double
        /// The 99th percentile of one sentence's time, in microseconds: each sentence timed on
        /// its own over three passes, its fastest time kept (the least disturbed by other load).
        public var p99Microseconds: Double = 0
    }

    /// Interprets the corpus repeatedly for at least `minimumSeconds` (no suggestions on misses, as
    /// hassil does not make any) and reports sentences per second.
    public static func measure(matcher: PhraseMatcher, sentences: [String], minimumSeconds: Double = 2) -> Measurement {
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
    /// line, `{"text": ..., "intent": name or null, "slots": {...}}`.
    public struct Answer: Sendable, Equatable {
        public var text: String
        public var intent: String?
        public var slots: [String: String]
    }

    /// Reads hassil's answers file.
    public static func readAnswers(_ data: Data) throws -> [Answer] {
        try String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            var slots: [String: String] = [:]
            for (k, v) in object["slots"] as? [String: Any] ?? [:] { slots[k] = "\(v)" }
            return Answer(text: object["text"] as? String ?? "", intent: object["intent"] as? String, slots: slots)
        }
    }

    /// Compares our best whole-text match with hassil's answer for each sentence.
    public static func compare(matcher: PhraseMatcher, with answers: [Answer]) -> (bothMatched: Int, same: Int, onlyOurs: Int, onlyHassil: Int, differences: [String]) {
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

/// A small seeded generator so the corpus is the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
