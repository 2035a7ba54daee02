import ArgumentParser
import Foundation
import HouseCore
import HouseTesting

/// `housectl-bench phrase-bench`: the phrase matcher benchmark half of `bench/phrases/run.sh`.
///
/// `--export DIR` writes the corpus and a hassil intents file for the Python side; otherwise it
/// measures our matcher on the same corpus and, given hassil's answers and rate, prints both rates,
/// the ratio and how often the answers agree.
struct PhraseBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "phrase-bench",
        abstract: "Benchmark the phrase matcher against hassil (used by bench/phrases/run.sh)."
    )

    @Option(help: "Phrase templates (hassil YAML).")
    var phrases = "config/phrases.yaml"

    @Option(help: "A language file of the community grammar (home-assistant-intents): measure it instead of --phrases, with the house's lists (--export writes them as lists.json for hassil).")
    var grammar: String?

    @Option(help: "A file of hand-written sentences, one per line, added to the generated corpus.")
    var natural: String?

    @Option(help: "Random sentences generated per template.")
    var perTemplate = 20

    @Option(help: "Seed of the generated corpus.")
    var seed: UInt64 = 7

    @Option(help: "Write corpus.txt and intents.json (hassil format) into this directory and stop.")
    var export: String?

    @Option(help: "hassil's answers (JSON lines) to compare with.")
    var hassilAnswers: String?

    @Option(help: "hassil's best-pass rate in sentences per second, to print the ratio.")
    var hassilRate: Double?

    @Option(help: "hassil's mean rate, printed next to the best-pass ratio.")
    var hassilMean: Double?

    @Option(help: "hassil's 99th percentile of one sentence's time, in microseconds.")
    var hassilP99: Double?

    @Option(help: "Measure for at least this many seconds.")
    var seconds = 3.0

    func run() throws {
        let set = try grammar.map { try CommunityGrammar.load(contentsOf: URL(fileURLWithPath: $0)).phraseSet }
            ?? PhraseSet.load(contentsOf: URL(fileURLWithPath: phrases))
        let house = PhraseFixtures.sampleHouse
        let matcher = try PhraseMatcher(phraseSet: set, house: house)
        var hand: [String] = []
        if let natural {
            hand = try String(contentsOfFile: natural, encoding: .utf8).split(separator: "\n")
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        let corpus = try PhraseBenchmark.corpus(matcher: matcher, perTemplate: perTemplate, seed: seed, natural: hand)
        if let export {
            let dir = URL(fileURLWithPath: export)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try (corpus.joined(separator: "\n") + "\n").write(to: dir.appendingPathComponent("corpus.txt"), atomically: true, encoding: .utf8)
            if let grammar {
                // hassil reads the grammar's own file, with the house's lists.
                try Data(contentsOf: URL(fileURLWithPath: grammar)).write(to: dir.appendingPathComponent("intents.json"))
                try CommunityGrammar.hassilLists(for: house, saidIn: house.rooms.first?.name)
                    .write(to: dir.appendingPathComponent("lists.json"))
            } else {
                try PhraseBenchmark.hassilExport(matcher: matcher).write(to: dir.appendingPathComponent("intents.json"))
            }
            print("wrote \(corpus.count) sentences (\(corpus.count - hand.count) generated, \(hand.count) hand-written) to \(export)")
            return
        }
        let m = PhraseBenchmark.measure(matcher: matcher, sentences: corpus, minimumSeconds: seconds)
        let matchedPerPass = m.matched * corpus.count / max(m.sentences, 1)
        print("housectl: best pass \(String(format: "%.0f", m.bestRate)) sentences/s, mean \(String(format: "%.0f", m.rate)) (\(corpus.count) sentences, \(matchedPerPass) understood, \(m.sentences) matched in \(String(format: "%.2f", m.seconds)) s)")
        print("housectl: p99 per sentence \(String(format: "%.1f", m.p99Microseconds)) us")
        if let hassilP99, hassilP99 > 0 {
            print("hassil:   p99 per sentence \(String(format: "%.1f", hassilP99)) us")
        }
        if let hassilRate, hassilRate > 0 {
            print("hassil:   best pass \(String(format: "%.0f", hassilRate)) sentences/s" + (hassilMean.map { String(format: ", mean %.0f", $0) } ?? ""))
            print("ratio:    \(String(format: "%.1f", m.bestRate / hassilRate))x hassil (best pass against best pass)" +
                  (hassilMean.map { String(format: "; %.1fx mean against mean", m.rate / $0) } ?? ""))
        }
        if let hassilAnswers {
            let answers = try PhraseBenchmark.readAnswers(Data(contentsOf: URL(fileURLWithPath: hassilAnswers)))
            let c = PhraseBenchmark.compare(matcher: matcher, with: answers)
            print("answers:  both matched \(c.bothMatched), same \(c.same), different \(c.bothMatched - c.same); only ours \(c.onlyOurs), only hassil \(c.onlyHassil)")
            for d in c.differences { print("  differs: \(d)") }
        }
    }
}
