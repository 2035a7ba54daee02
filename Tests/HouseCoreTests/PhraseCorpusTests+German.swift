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
    /// keep it so; the other two say what that generalises to. Not understood yet: "zu 70 Prozent
    /// schließen", "Dreh die Heizung auf/ab", "Mach die Garage auf" (the room for its door),
    /// routines said in other words ("Bitte gieß den Garten"), a mode said as a wish ("wir
    /// schauen jetzt einen Film").
    static let germanFloors = Floors(minimumRight: 128, minimumCannot: 9, maximumFalseActuations: 0)

    /// Whether the German grammar is there to read with (CI must have it: the test then fails
    /// without it rather than being skipped).
    static var germanGrammarPresent: Bool {
        FileManager.default.fileExists(atPath: HouseFixtures.grammarFile("de").path) || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    /// The German held-out corpus (Tests/Corpus/ahorn-heldout.tsv): written blind as ahorn.tsv
    /// was, by another helper, after config/phrases.de.yaml was written from ahorn.tsv's misses;
    /// never used to write phrases. What it scores is what the German phrases generalise to. (The
    /// one false actuation it found, a scene said with a room setting its mode in the whole house,
    /// was fixed where the grammar's intents are read.)
    static let germanHeldOutFloors = Floors(minimumRight: 95, minimumCannot: 9, maximumFalseActuations: 0)

    /// The third German corpus (Tests/Corpus/ahorn-third.tsv): written blind by a third helper
    /// for the household's four people (a grandmother's "Sie" among them), after the German
    /// phrases were written: scored before anything was changed for it (93 of 106 right), then
    /// after "hier" was added from ahorn.tsv's misses.
    static let germanThirdFloors = Floors(minimumRight: 94, minimumCannot: 6, maximumFalseActuations: 0)

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
