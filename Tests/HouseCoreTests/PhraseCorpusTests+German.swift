import Foundation
import HouseCore
import HouseTesting
import Testing

extension PhraseCorpusTests {
    /// The German blind corpus (Tests/Corpus/ahorn.tsv): sentences written from the user's side
    /// only (Tests/Corpus/ahorn.yaml, README.md and docs/CONFIG.md, never the templates, the
    /// grammar or the matcher) for a German-speaking house, read as the daemon reads for it:
    /// config/phrases.yaml and phrases.de.yaml with the community grammar's de.json.
    /// config/phrases.de.yaml was written from its misses: its floors show what is understood and
    /// keep it so; the other two say what that generalises to. A stop of the garage door, which
    /// has no contacts, is refused (a press could start it) where the writers expected a stop.
    /// Not understood yet: "Mach die Garage auf" (the room for its door),
    /// routines said in other words ("Bitte gieß den Garten"), a mode said as a wish ("wir
    /// schauen jetzt einen Film").
    static let germanFloors = Floors(minimumRight: 130, minimumCannot: 9, maximumFalseActuations: 0)

    /// Whether the German grammar is there to read with (CI must have it: the test then fails
    /// without it rather than being skipped).
    static var germanGrammarPresent: Bool {
        FileManager.default.fileExists(atPath: HouseFixtures.grammarFile("de").path) || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    /// The German held-out corpus (Tests/Corpus/ahorn-heldout.tsv): written blind as ahorn.tsv
    /// was, by another helper, after config/phrases.de.yaml was written from ahorn.tsv's misses;
    /// not used to write phrases (two bugs it showed were fixed: a scene said with a room, a
    /// room's temperature).
    static let germanHeldOutFloors = Floors(minimumRight: 96, minimumCannot: 9, maximumFalseActuations: 0)

    /// The third German corpus (Tests/Corpus/ahorn-third.tsv): written blind by a third helper
    /// for the household's four people (a grandmother's "Sie" among them), never used to write
    /// phrases: the figure for German sentences nobody tuned for.
    static let germanThirdFloors = Floors(minimumRight: 93, minimumCannot: 6, maximumFalseActuations: 0)

    @Test("the German corpora: one line of figures each, and their floors", .enabled(if: germanGrammarPresent),
          arguments: ["ahorn.tsv", "ahorn-heldout.tsv", "ahorn-third.tsv"])
    func germanCorpus(file: String) async throws {
        let floors = [("ahorn.tsv", Self.germanFloors), ("ahorn-heldout.tsv", Self.germanHeldOutFloors), ("ahorn-third.tsv", Self.germanThirdFloors)]
            .first { $0.0 == file }!.1
        try await Self.score(HouseFixtures.repositoryRoot + "/Tests/Corpus/" + file, house: "German house",
                             engine: try Self.germanEngine(), floors: floors)
    }

    /// Haus Ahorn read as the daemon reads it: our phrases for German (config/phrases.yaml and
    /// phrases.de.yaml) with the community grammar's de.json.
    static func germanEngine() throws -> HouseEngine {
        let root = HouseFixtures.repositoryRoot
        let grammar = try #require(try HouseFixtures.grammar("de"), "no de.json: scripts/intents-data.sh fetches it")
        let phrases = try PhraseSet.loadOwn(in: URL(fileURLWithPath: root + "/config"), language: "de").merging(grammar.phraseSet)
        let path = root + "/Tests/Corpus/ahorn.yaml"
        let configuration = try ConfigurationLoader().load(yaml: String(contentsOfFile: path, encoding: .utf8), file: path,
                                                           boards: HouseFixtures.boards())
        return HouseEngine(configuration: configuration, matcher: try PhraseMatcher(phraseSet: phrases, house: configuration))
    }
}
