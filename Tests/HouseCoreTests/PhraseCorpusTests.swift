import Foundation
import HouseCore
import HouseTesting
import Testing

/// The phrase corpus (Tests/Corpus/phrases.tsv): everyday sentences against the example house,
/// each with the outcome a person expects. Every sentence goes through the matcher and the
/// pipeline (dry run, with a yes given up front, as after a confirmation), and the score is
/// printed as one line that `make test` repeats at its end:
///
///     phrase corpus: N sentences; possible P: right intent and devices R% ...; false actuations F
///
/// The figures only move one way: the test fails when right answers drop below, or false
/// actuations rise above, the floor recorded here. Raise the floors as the matcher improves.
@Suite struct PhraseCorpusTests {
    /// The floors: right answers on possible requests, and the most false actuations allowed.
    static let minimumRight = 473
    static let maximumFalseActuations = 0
    /// Requests the house cannot do, answered with what it can (never "I don't understand").
    static let minimumCannot = 39

    /// What a corpus line expects.
    enum Expectation: Equatable {
        case control(HouseAction, Set<String>)
        case mode(String, rooms: Set<String>)
        case routine(String)
        case query
        case ask
        case cannot
        case unknown

        init?(_ text: String) {
            let words = text.split(separator: " ").map(String.init)
            guard let head = words.first else { return nil }
            let rest = Array(words.dropFirst())
            switch head {
            case "on", "off", "toggle", "open", "close":
                guard let action = HouseAction(rawValue: head), !rest.isEmpty else { return nil }
                self = .control(action, Set(rest))
            case "mode":
                guard let mode = rest.first else { return nil }
                self = .mode(mode, rooms: Set(rest.dropFirst()))
            case "routine":
                guard let routine = rest.first, rest.count == 1 else { return nil }
                self = .routine(routine)
            case "query": self = .query
            case "ask": self = .ask
            case "cannot": self = .cannot
            case "unknown": self = .unknown
            default: return nil
            }
        }

        /// A request the house can carry out or answer.
        var isPossible: Bool {
            switch self {
            case .control, .mode, .routine, .query: true
            case .ask, .cannot, .unknown: false
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

    static func loadCorpus() throws -> [Line] {
        let path = HouseFixtures.repositoryRoot + "/Tests/Corpus/phrases.tsv"
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

    static func evaluate(_ line: Line, matcher: PhraseMatcher, pipeline: IntentPipeline) async -> Result {
        let yes = IntentAnswers(confirmed: true, contextRoom: line.room)
        let run = await PhraseRun.run(matcher.interpret(line.phrase), answers: yes) { intent in
            await pipeline.process(intent, source: .cli, answers: yes, dryRun: true)
        }
        let outcomes = run.outcomes
        let commands = outcomes.flatMap(\.commands)
        let switched = Set(commands.map(\.device))
        var understood = true
        if case .notUnderstood = run.end { understood = false }
        let last = outcomes.last
        let asked: Bool = {
            if case .needsPhraseChoice = run.end { return true }
            return last?.status == .needsValue || last?.status == .needsChoice
        }()
        func value(_ parameter: String) -> Set<String> {
            Set(outcomes.flatMap { $0.parameters.filter { $0.parameter == parameter }.flatMap(\.values).map(\.id) })
        }
        let right: Bool
        var falseActuation = !commands.isEmpty
        switch line.expectation {
        case .control(let action, let devices):
            let done = last?.status == .done
            switch action {
            case .on, .off:
                // The state asked for, however it was said ("open the blinds" switches the up
                // relay on); an interlocked partner switched off on the way is not counted.
                let wanted: DeviceState = action == .on ? .on : .off
                let toWanted = Set(commands.filter { Self.state($0) == wanted }.map(\.device))
                let toOther = Set(commands.filter { Self.state($0) != wanted }.map(\.device))
                right = done && toWanted == devices && (action == .on || toOther.isEmpty)
            case .toggle, .open, .close:
                let actions = Set(outcomes.compactMap { outcome -> HouseAction? in
                    if case .control(let c) = outcome.intent { return c.action }
                    return nil
                })
                right = done && switched == devices && actions == [action]
            }
            falseActuation = !commands.isEmpty && !right
        case .mode(let mode, let rooms):
            right = last?.status == .done && value("mode") == [mode] && value("rooms") == rooms
            falseActuation = !commands.isEmpty && !right
        case .routine(let routine):
            right = last?.status == .done && value("routine") == [routine]
            falseActuation = !commands.isEmpty && !right
        case .query:
            right = commands.isEmpty && last?.status == .done
                && outcomes.allSatisfy { if case .query = $0.intent { true } else { false } }
        case .ask:
            right = commands.isEmpty && asked
        case .cannot:
            right = commands.isEmpty && understood && (last?.status == .unsupported || last?.status == .refused)
        case .unknown:
            right = commands.isEmpty && !understood
        }
        let answer: String
        switch run.end {
        case .notUnderstood(let message): answer = message
        case .needsPhraseChoice(_, let question, _): answer = question
        case .processed: answer = outcomes.map(\.dialog).joined(separator: " ")
        }
        let summary = "\(line.number): \"\(line.phrase)\" -> \(last?.status.rawValue ?? "-") \(switched.sorted()) \(answer.prefix(100))"
        return Result(understood: understood, right: right, falseActuation: falseActuation, summary: summary)
    }

    /// The state a command leaves its device in; nil for a pulse.
    static func state(_ command: DeviceCommand) -> DeviceState? {
        switch command {
        case .relay(_, _, let state): state
        case .pulse: nil
        case .publish(_, _, let payload): DeviceState(rawValue: payload.uppercased())
        }
    }

    @Test("the phrase corpus: one line of figures, right answers never fewer and false actuations never more than the floors")
    func corpus() async throws {
        let configuration = try HouseFixtures.exampleConfiguration()
        let phrases = try PhraseSet.load(contentsOf: URL(fileURLWithPath: HouseFixtures.repositoryRoot + "/config/phrases.yaml"))
        let matcher = try PhraseMatcher(phraseSet: phrases, house: configuration)
        let pipeline = IntentPipeline(service: HouseService(configuration: configuration))
        let lines = try Self.loadCorpus()
        #expect(lines.count >= 500, "the corpus has \(lines.count) sentences")

        var results: [(Line, Result)] = []
        for line in lines {
            results.append((line, await Self.evaluate(line, matcher: matcher, pipeline: pipeline)))
            // Hundreds of sentences of CPU work: let the other tests' tasks run in between, or
            // they starve (a socket opened by one of them would then wait for its CONNECT).
            await Task.yield()
        }

        func count(_ filter: (Line, Result) -> Bool) -> Int { results.filter(filter).count }
        let possible = count { l, _ in l.expectation.isPossible }
        let right = count { l, r in l.expectation.isPossible && r.right }
        func tally(_ e: (Expectation) -> Bool) -> String {
            "\(count { l, r in e(l.expectation) && r.right })/\(count { l, _ in e(l.expectation) })"
        }
        let falseActuations = count { _, r in r.falseActuation }
        let understood = count { l, r in l.expectation != .unknown && r.understood }
        let percent = possible == 0 ? 0 : Double(right) / Double(possible) * 100
        print("phrase corpus: \(lines.count) sentences; possible \(possible): right intent and devices "
              + String(format: "%.1f%%", percent) + " (\(right)); understood \(understood)/\(count { l, _ in l.expectation != .unknown }); "
              + "asked \(tally { $0 == .ask }); cannot \(tally { $0 == .cannot }); unknown \(tally { $0 == .unknown }); "
              + "false actuations \(falseActuations)")
        if ProcessInfo.processInfo.environment["HOUSECTL_CORPUS_VERBOSE"] == "1" {
            for (line, result) in results where !result.right || result.falseActuation {
                print("  \(result.falseActuation ? "FALSE ACTUATION " : "")\(line.expectation): \(result.summary)")
            }
        }
        #expect(right >= Self.minimumRight, "right answers fell to \(right), below the floor of \(Self.minimumRight)")
        let cannot = count { l, r in l.expectation == .cannot && r.right }
        #expect(cannot >= Self.minimumCannot, "requests the house cannot do answered right fell to \(cannot), below \(Self.minimumCannot)")
        #expect(falseActuations <= Self.maximumFalseActuations,
                "\(falseActuations) false actuations, more than the floor of \(Self.maximumFalseActuations): HOUSECTL_CORPUS_VERBOSE=1 lists them")
    }
}
