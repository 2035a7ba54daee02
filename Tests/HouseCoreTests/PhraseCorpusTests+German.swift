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

    @Test("the German blind corpus: one line of figures, and its floors")
    func germanCorpus() async throws {
        let root = HouseFixtures.repositoryRoot
        // Outside CI a checkout without the grammar has nothing German to read with (CI must have it).
        guard let grammar = try HouseFixtures.grammar("de") else { return }
        let phrases = try PhraseSet.load(contentsOf: URL(fileURLWithPath: root + "/config/phrases.yaml")).merging(grammar.phraseSet)
        let path = root + "/Tests/Corpus/ahorn.yaml"
        let configuration = try ConfigurationLoader().load(yaml: String(contentsOfFile: path, encoding: .utf8), file: path,
                                                           boards: HouseFixtures.boards())
        let engine = HouseEngine(configuration: configuration, matcher: try PhraseMatcher(phraseSet: phrases, house: configuration))
        var results: [(Line, Result)] = []
        for line in try Self.loadCorpus(root + "/Tests/Corpus/ahorn.tsv") {
            results.append((line, await Self.evaluate(line, engine: engine)))
            await Task.yield()
        }
        print("ahorn.tsv, German house: " + Self.figures(results))
        Self.listMisses(results, label: "ahorn.tsv")
        Self.expect(results, floors: Self.germanFloors, label: "ahorn.tsv")
    }
}
