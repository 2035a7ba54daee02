import Foundation
import HouseCore
import HouseTesting
import Testing

extension PhraseCorpusTests {
    /// The German blind corpus (Tests/Corpus/ahorn.tsv): sentences written from the user's side
    /// only (Tests/Corpus/ahorn.yaml, README.md and docs/CONFIG.md, never the templates, the
    /// grammar or the matcher) for a German-speaking house, read as the daemon reads for it:
    /// config/phrases.yaml with the community grammar's de.json. Its floors are what the house
    /// reads now (no German phrases of our own yet: compounds such as "Küchenlicht", questions
    /// with a room, "Nachtmodus" and the routines' shortcuts said loosely are not understood),
    /// raised as it learns.
    static let germanFloors = Floors(minimumRight: 75, minimumCannot: 3, maximumFalseActuations: 0)

    /// Whether the German grammar is there to read with (CI must have it: the test then fails
    /// without it rather than being skipped).
    static var germanGrammarPresent: Bool {
        FileManager.default.fileExists(atPath: HouseFixtures.grammarFile("de").path) || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    @Test("the German blind corpus: one line of figures, and its floors", .enabled(if: germanGrammarPresent))
    func germanCorpus() async throws {
        let root = HouseFixtures.repositoryRoot
        let grammar = try #require(try HouseFixtures.grammar("de"), "no de.json: scripts/intents-data.sh fetches it")
        let phrases = try PhraseSet.load(contentsOf: URL(fileURLWithPath: root + "/config/phrases.yaml")).merging(grammar.phraseSet)
        let path = root + "/Tests/Corpus/ahorn.yaml"
        let configuration = try ConfigurationLoader().load(yaml: String(contentsOfFile: path, encoding: .utf8), file: path,
                                                           boards: HouseFixtures.boards())
        let engine = HouseEngine(configuration: configuration, matcher: try PhraseMatcher(phraseSet: phrases, house: configuration))
        try await Self.score(root + "/Tests/Corpus/ahorn.tsv", house: "German house", engine: engine, floors: Self.germanFloors)
    }
}
