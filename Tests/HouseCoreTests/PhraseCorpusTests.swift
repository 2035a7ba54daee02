import Foundation
import HouseCore
import HouseTesting
import Testing

/// The phrase corpus: everyday sentences, each with the outcome a person expects, against two
/// houses: the example house (config/house.yaml, Tests/Corpus/phrases.tsv) and a manor with three
/// floors, 14 rooms and same-named devices in several rooms (Tests/Corpus/manor.yaml and
/// manor.tsv). Every sentence goes through the matcher and the pipeline (dry run, with a yes
/// given up front, as after a confirmation), and the score is printed as one line for both
/// houses, then one per house, which `make test` repeats at its end:
///
///     phrase corpus: N sentences; possible P: right intent and devices R% ...; false actuations F
///
/// The figures only move one way: the test fails when right answers drop below, or false
/// actuations rise above, the floor recorded here. Raise the floors as the matcher improves.
@Suite struct PhraseCorpusTests {
    /// A corpus's floors: right answers on possible requests, requests the house cannot do
    /// answered with what it can (never "I don't understand"), and the most false actuations.
    struct Floors {
        var minimumRight: Int
        var minimumCannot: Int
        var maximumFalseActuations: Int
    }

    /// The main corpus's floors.
    static let floors = Floors(minimumRight: 771, minimumCannot: 59, maximumFalseActuations: 0)

    /// What a corpus line expects.
    indirect enum Expectation: Equatable {
        case control(HouseAction, Set<DeviceID>)
        /// Covers to a position (`position ID... N`).
        case position(Set<DeviceID>, Int)
        case mode(String, rooms: Set<String>)
        case routine(String)
        /// A question; with ids, about exactly these devices.
        case query(Set<DeviceID>)
        case ask
        case cannot
        case unknown
        /// Several commands in one sentence ("... and ..."), each part in order.
        case parts([Expectation])

        init?(_ text: String) {
            if text.contains(";") {
                let parts = text.split(separator: ";").map { Expectation(String($0).trimmingCharacters(in: .whitespaces)) }
                guard parts.count > 1, parts.allSatisfy({ $0 != nil }) else { return nil }
                self = .parts(parts.compactMap { $0 })
                return
            }
            let words = text.split(separator: " ").map(String.init)
            guard let head = words.first else { return nil }
            let rest = Array(words.dropFirst())
            switch head {
            case "on", "off", "toggle", "open", "close":
                guard let action = HouseAction(rawValue: head), !rest.isEmpty else { return nil }
                self = .control(action, Set(rest.map { DeviceID($0) }))
            case "position":
                guard rest.count > 1, let position = Int(rest.last!) else { return nil }
                self = .position(Set(rest.dropLast().map { DeviceID($0) }), position)
            case "mode":
                guard let mode = rest.first else { return nil }
                self = .mode(mode, rooms: Set(rest.dropFirst()))
            case "routine":
                guard let routine = rest.first, rest.count == 1 else { return nil }
                self = .routine(routine)
            case "query": self = .query(Set(rest.map { DeviceID($0) }))
            case "ask": self = .ask
            case "cannot": self = .cannot
            case "unknown": self = .unknown
            default: return nil
            }
        }

        /// A request the house can carry out or answer.
        var isPossible: Bool {
            switch self {
            case .control, .position, .mode, .routine, .query: true
            case .ask, .cannot, .unknown: false
            // A sentence with a part the house can do ("movie mode and dim the lights").
            case .parts(let parts): parts.contains(where: \.isPossible)
            }
        }
    }

    struct Line {
        var number: Int
        var phrase: String
        var expectation: Expectation
        /// The speaker's room (a third column), if the line gives one.
        var room: String?
    }

    /// What the house did with one sentence.
    struct Result {
        var understood: Bool
        var right: Bool
        /// Something would be switched that the sentence did not ask for.
        var falseActuation: Bool
        var summary: String
    }

    /// A house and its corpus.
    struct House {
        var name: String
        var configuration: HouseConfiguration
        var corpus: String
    }

    static func houses() throws -> [House] {
        let root = HouseFixtures.repositoryRoot
        let manorPath = root + "/Tests/Corpus/manor.yaml"
        let manor = try ConfigurationLoader().load(yaml: String(contentsOfFile: manorPath, encoding: .utf8), file: manorPath,
                                                   boards: HouseFixtures.boards())
        return [
            House(name: "example house", configuration: try HouseFixtures.exampleConfiguration(), corpus: root + "/Tests/Corpus/phrases.tsv"),
            House(name: "manor", configuration: manor, corpus: root + "/Tests/Corpus/manor.tsv"),
        ]
    }

    static func loadCorpus(_ path: String = HouseFixtures.repositoryRoot + "/Tests/Corpus/phrases.tsv") throws -> [Line] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var lines: [Line] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 2 || fields.count == 3,
                  let expectation = Expectation(String(fields[1]).trimmingCharacters(in: .whitespaces)) else {
                throw CorpusError(description: "\(path):\(index + 1): expected 'phrase<TAB>expectation[<TAB>room]', got \(line)")
            }
            let room = fields.count == 3 ? String(fields[2]).trimmingCharacters(in: .whitespaces) : nil
            lines.append(Line(number: index + 1, phrase: String(fields[0]), expectation: expectation, room: room))
        }
        return lines
    }

    struct CorpusError: Error, CustomStringConvertible {
        let description: String
    }

    static func evaluate(_ line: Line, engine: HouseEngine) async -> Result {
        let yes = IntentAnswers(confirmed: true, contextRoom: line.room)
        let run = await engine.process(phrase: line.phrase, source: .cli, answers: yes, dryRun: true)
        let (right, falseActuation) = judge(line.expectation, outcomes: run.outcomes, end: run.end)
        var understood = true
        if case .notUnderstood = run.end { understood = false }
        let answer: String
        switch run.end {
        case .notUnderstood(let message): answer = message
        case .needsPhraseChoice(_, let question, _): answer = question
        case .processed: answer = run.outcomes.map(\.dialog).joined(separator: " ")
        case .dismissed: answer = "(never mind)"
        }
        let switched = Set(run.outcomes.flatMap(\.commands).map(\.device))
        let summary = "\(line.number): \"\(line.phrase)\" -> \(run.outcomes.last?.status.rawValue ?? "-") \(switched.sorted()) \(answer.prefix(100))"
        return Result(understood: understood, right: right, falseActuation: falseActuation, summary: summary)
    }

    /// Whether `outcomes` are what `expectation` asks for, and whether something was switched
    /// that was not asked for.
    static func judge(_ expectation: Expectation, outcomes: [IntentOutcome], end: PhraseRun.End) -> (right: Bool, falseActuation: Bool) {
        // A cover's winding counts as its cover ("living-shutter/up" is "living-shutter").
        let commands = outcomes.flatMap(\.commands).map(Self.coverCommand)
        if case .parts(let parts) = expectation {
            // One outcome per part, each judged alone.
            guard outcomes.count == parts.count else {
                let allowed = parts.reduce(into: Set<DeviceID>()) { set, part in
                    if case .control(_, let ids) = part { set.formUnion(ids) }
                }
                return (false, commands.contains { !allowed.contains($0.device) })
            }
            let judged = zip(parts, outcomes).map { judge($0, outcomes: [$1], end: .processed) }
            return (judged.allSatisfy(\.right), judged.contains(where: \.falseActuation))
        }
        let switched = Set(commands.map(\.device))
        var understood = true
        if case .notUnderstood = end { understood = false }
        let last = outcomes.last
        let asked: Bool = {
            if case .needsPhraseChoice = end { return true }
            return last?.status == .needsValue || last?.status == .needsChoice
        }()
        func value(_ parameter: String) -> Set<String> {
            Set(outcomes.flatMap { $0.parameters.filter { $0.parameter == parameter }.flatMap(\.values).map(\.id) })
        }
        let right: Bool
        var falseActuation = !commands.isEmpty
        switch expectation {
        case .control(let action, let devices):
            let done = last?.status == .done
            switch action {
            case .on, .off:
                // The state asked for, however it was said ("open the blinds" switches the up
                // relay on); an interlocked partner switched off on the way is not counted.
                let wanted: DeviceState = action == .on ? .on : .off
                let toWanted = Set(commands.filter { $0.resultingState == wanted }.map(\.device))
                let toOther = Set(commands.filter { $0.resultingState != wanted }.map(\.device))
                right = done && toWanted == devices && (action == .on || toOther.isEmpty)
            case .toggle, .open, .close, .stop, .position:
                let actions = Set(outcomes.compactMap { outcome -> HouseAction? in
                    if case .control(let c) = outcome.intent { return c.action }
                    return nil
                })
                right = done && switched == devices && actions == [action]
            }
            falseActuation = !commands.isEmpty && !right
        case .position(let devices, let position):
            right = last?.status == .done && switched == devices && value("position") == ["\(position)"]
            falseActuation = !commands.isEmpty && !right
        case .mode(let mode, let rooms):
            right = last?.status == .done && value("mode") == [mode] && value("rooms") == rooms
            falseActuation = !commands.isEmpty && !right
        case .routine(let routine):
            right = last?.status == .done && value("routine") == [routine]
            falseActuation = !commands.isEmpty && !right
        case .query(let devices):
            right = commands.isEmpty && last?.status == .done
                && outcomes.allSatisfy { if case .query = $0.intent { true } else { false } }
                && (devices.isEmpty || Set(last?.response?.devices.map(\.device) ?? []) == devices)
        case .parts:
            right = false
        case .ask:
            right = commands.isEmpty && asked
        case .cannot:
            right = commands.isEmpty && understood && (last?.status == .unsupported || last?.status == .refused)
        case .unknown:
            // Not understood, or refused with its reason ("There's no light in the bathroom").
            right = commands.isEmpty && (!understood || last?.status == .unsupported || last?.status == .refused)
        }
        return (right, falseActuation)
    }

    @Test("the phrase corpus: one line of figures, right answers never fewer and false actuations never more than the floors")
    func corpus() async throws {
        let phrases = try HouseFixtures.phrases()
        var all: [(Line, Result)] = []
        var perHouse: [(String, [(Line, Result)])] = []
        for house in try Self.houses() {
            let matcher = try PhraseMatcher(phraseSet: phrases, house: house.configuration)
            let engine = HouseEngine(configuration: house.configuration, matcher: matcher)
            let results = try await Self.results(house.corpus, engine: engine)
            perHouse.append((house.name, results))
            all += results
        }
        #expect(all.count >= 500, "the corpus has \(all.count) sentences")
        print("phrase corpus: \(perHouse.count) houses, " + Self.figures(all))
        for (name, results) in perHouse { print("phrase corpus, \(name): " + Self.figures(results)) }
        for (name, results) in perHouse { Self.listMisses(results, label: name) }
        Self.expect(all, floors: Self.floors, label: "phrase corpus")
    }

    /// With HOUSECTL_CORPUS_VERBOSE=1, every line not answered right, false actuations marked.
    static func listMisses(_ results: [(Line, Result)], label: String) {
        guard ProcessInfo.processInfo.environment["HOUSECTL_CORPUS_VERBOSE"] == "1" else { return }
        for (line, result) in results where !result.right || result.falseActuation {
            print("  \(label) \(result.falseActuation ? "FALSE ACTUATION " : "")\(line.expectation): \(result.summary)")
        }
    }

    /// The results hold the floors: right answers and answered impossible requests never fewer,
    /// false actuations never more.
    static func expect(_ results: [(Line, Result)], floors: Floors, label: String) {
        let right = results.filter { $0.0.expectation.isPossible && $0.1.right }.count
        #expect(right >= floors.minimumRight, "\(label): right answers fell to \(right), below the floor of \(floors.minimumRight)")
        let cannot = results.filter { $0.0.expectation == .cannot && $0.1.right }.count
        #expect(cannot >= floors.minimumCannot,
                "\(label): requests the house cannot do answered with a reason fell to \(cannot), below \(floors.minimumCannot)")
        let falseActuations = results.filter { $0.1.falseActuation }.count
        #expect(falseActuations <= floors.maximumFalseActuations,
                "\(label): \(falseActuations) false actuations, more than the floor of \(floors.maximumFalseActuations): HOUSECTL_CORPUS_VERBOSE=1 lists them")
    }

    /// A command for a cover's winding as a command for the cover.
    static func coverCommand(_ command: DeviceCommand) -> DeviceCommand {
        switch command {
        case .relay(let d, let ref, let state) where d.rawValue.contains("/"):
            return .relay(device: DeviceID(String(d.rawValue.split(separator: "/")[0])), ref, state)
        case .pulse(let d, let ref, let t) where d.rawValue.contains("/"):
            return .pulse(device: DeviceID(String(d.rawValue.split(separator: "/")[0])), ref, t)
        default:
            return command
        }
    }

    /// The figures of one set of results: sentences, right answers on possible requests, asked,
    /// cannot, unknown and false actuations.
    static func figures(_ results: [(Line, Result)]) -> String {
        func count(_ filter: (Line, Result) -> Bool) -> Int { results.filter(filter).count }
        let possible = count { l, _ in l.expectation.isPossible }
        let right = count { l, r in l.expectation.isPossible && r.right }
        func tally(_ e: (Expectation) -> Bool) -> String {
            "\(count { l, r in e(l.expectation) && r.right })/\(count { l, _ in e(l.expectation) })"
        }
        let understood = count { l, r in l.expectation != .unknown && r.understood }
        let percent = possible == 0 ? 0 : Double(right) / Double(possible) * 100
        return "\(results.count) sentences; possible \(possible): right intent and devices "
            + String(format: "%.1f%%", percent) + " (\(right)); understood \(understood)/\(count { l, _ in l.expectation != .unknown }); "
            + "asked \(tally { $0 == .ask }); cannot \(tally { $0 == .cannot }); unknown \(tally { $0 == .unknown }); "
            + "false actuations \(count { _, r in r.falseActuation })"
    }

    /// The blind corpora: sentences written from the user's side only (the example house's
    /// config/house.yaml, README.md and docs/CONFIG.md, never the templates or the resolver):
    /// wake words, politeness, possessives, covers, modes, questions and impossible requests, as
    /// a new user would type them. `blind.tsv` guided the tolerant matching; `heldout.tsv` was
    /// written after it and never tuned against, so it shows what generalises. Each has its own
    /// floors, raised as the matcher learns to read what people say.
    /// With the community grammar (`make` fetches it; CI must have it) and without.
    static func blindCorpora(grammar: Bool) -> [(file: String, floors: Floors)] {
        [("blind.tsv", Floors(minimumRight: grammar ? 291 : 290, minimumCannot: 24, maximumFalseActuations: 0)),
         ("heldout.tsv", Floors(minimumRight: grammar ? 110 : 108, minimumCannot: 8, maximumFalseActuations: 0))]
    }

    @Test("the blind corpora: one line of figures each, and their floors")
    func blindCorpora() async throws {
        let root = HouseFixtures.repositoryRoot
        let phrases = try HouseFixtures.phrases()
        let configuration = try HouseFixtures.exampleConfiguration()
        let engine = HouseEngine(configuration: configuration, matcher: try PhraseMatcher(phraseSet: phrases, house: configuration))
        for corpus in Self.blindCorpora(grammar: phrases.groups.contains { $0.fromGrammar }) {
            try await Self.score(root + "/Tests/Corpus/" + corpus.file, house: "example house", engine: engine, floors: corpus.floors)
        }
    }

    /// Every line of the corpus at `path`, read with `engine`.
    static func results(_ path: String, engine: HouseEngine) async throws -> [(Line, Result)] {
        var results: [(Line, Result)] = []
        for line in try loadCorpus(path) {
            results.append((line, await evaluate(line, engine: engine)))
            // Hundreds of sentences of CPU work: let the other tests' tasks run in between, or
            // they starve (a socket opened by one of them would then wait for its CONNECT).
            await Task.yield()
        }
        return results
    }

    /// Reads the corpus at `path` with `engine`, prints its line of figures (and its misses
    /// with HOUSECTL_CORPUS_VERBOSE=1) and holds it to `floors`.
    static func score(_ path: String, house: String, engine: HouseEngine, floors: Floors) async throws {
        let file = (path as NSString).lastPathComponent
        let results = try await results(path, engine: engine)
        print("\(file), \(house): " + figures(results))
        listMisses(results, label: file)
        expect(results, floors: floors, label: file)
    }
}
