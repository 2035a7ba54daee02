import Foundation
import HouseTesting
@testable import HouseCore
import Testing

/// How words the templates do not have are read again (`PhraseSpelling`): umlauts typed as two
/// letters, compounds of a place or mode of the house with a known word.
struct PhraseSpellingTests {
    let vocabulary = ["küche", "licht", "heizung", "schließen", "modus", "tür", "an", "aus"]
    let heads = ["küche", "bad", "badezimmer", "flur", "garage", "urlaub", "nacht"]
    var spelling: PhraseSpelling { PhraseSpelling(vocabulary: vocabulary, heads: heads) }
    func known(_ word: String) -> Bool { vocabulary.contains(word) }

    @Test func umlautsTypedAsTwoLettersAreTheWordsWithUmlauts() {
        #expect(spelling.read("kueche", known: known) == ["küche"])
        #expect(spelling.read("schliessen", known: known) == ["schließen"])
        #expect(spelling.read("tuer", known: known) == ["tür"])
    }

    @Test func aCompoundOfAPlaceAndAKnownWordIsTwoWords() {
        #expect(spelling.read("küchenlicht", known: known) == ["küche", "licht"])
        #expect(spelling.read("kuechenlicht", known: known) == ["küche", "licht"])
        #expect(spelling.read("flurheizung", known: known) == ["flur", "heizung"])
        #expect(spelling.read("badheizung", known: known) == ["bad", "heizung"])
        #expect(spelling.read("badezimmerheizung", known: known) == ["badezimmer", "heizung"])
        #expect(spelling.read("garagentuer", known: known) == ["garage", "tür"])
        #expect(spelling.read("urlaubsmodus", known: known) == ["urlaub", "modus"])
        #expect(spelling.read("nachtmodus", known: known) == ["nacht", "modus"])
    }

    @Test func whatIsNotAPlaceWithAKnownWordStaysUnread() {
        #expect(spelling.read("kellerlicht", known: known) == nil)
        #expect(spelling.read("küchenschrank", known: known) == nil)
        // too short a second part to be read as a word
        #expect(spelling.read("flurxy", known: known) == nil)
        #expect(spelling.read("asdf", known: known) == nil)
    }
}

/// Haus Ahorn (Tests/Corpus/ahorn.yaml) read with our German phrases alone (phrases.yaml and
/// phrases.de.yaml, without the community grammar): compounds, umlauts typed as two letters and
/// a routine's shortcut without its "Haus".
struct GermanPhrasesTests {
    static func matcher(adding extra: String? = nil) throws -> PhraseMatcher {
        let root = HouseFixtures.repositoryRoot
        var phrases = try PhraseSet.loadOwn(in: URL(fileURLWithPath: root + "/config"), language: "de")
        if let extra { phrases = phrases.merging(try PhraseSet.parse(yaml: extra)) }
        let path = root + "/Tests/Corpus/ahorn.yaml"
        let house = try ConfigurationLoader().load(yaml: String(contentsOfFile: path, encoding: .utf8), file: path, boards: HouseFixtures.boards())
        return try PhraseMatcher(phraseSet: phrases, house: house)
    }

    static func intent(_ matcher: PhraseMatcher, _ text: String) -> HouseIntent? {
        guard case .commands(let commands) = matcher.interpret(text, suggest: false), commands.count == 1 else { return nil }
        return commands[0].candidates.first?.intent
    }

    @Test func theGermanFileIsReadOnlyForAGermanHouse() {
        let config = URL(fileURLWithPath: HouseFixtures.repositoryRoot + "/config")
        #expect(PhraseSet.ownFiles(in: config, language: "de").map(\.lastPathComponent) == ["phrases.yaml", "phrases.de.yaml"])
        #expect(PhraseSet.ownFiles(in: config, language: "en").map(\.lastPathComponent) == ["phrases.yaml"])
        #expect(PhraseSet.ownFiles(in: config, language: "fr").map(\.lastPathComponent) == ["phrases.yaml"])
        // A region without a file of its own reads its language's.
        #expect(PhraseSet.ownFiles(in: config, language: "de-CH").map(\.lastPathComponent) == ["phrases.yaml", "phrases.de.yaml"])
    }

    @Test func compoundsAndUmlautsTypedAsTwoLetters() throws {
        let m = try Self.matcher()
        #expect(Self.intent(m, "Küchenlicht an") == .control(HouseControlIntent(room: "Küche", action: .on, device: "Licht")))
        #expect(Self.intent(m, "kuechenlicht aus") == .control(HouseControlIntent(room: "Küche", action: .off, device: "Licht")))
        #expect(Self.intent(m, "Nachtmodus oben") == .setMode(SetHouseModeIntent(mode: "Nacht", floor: "oben")))
        #expect(Self.intent(m, "Urlaubsmodus aktivieren") == .setMode(SetHouseModeIntent(mode: "Urlaub")))
        #expect(Self.intent(m, "Kellerlicht an") == nil)
    }

    @Test func aCompoundTheTemplatesKnowIsReadAsTwoWordsOnlyWhenItMatchesNothing() throws {
        // "badheizung" is a word of a template (as the grammar's "{area}[ ]heizung" makes it).
        let m = try Self.matcher(adding: """
            language: de
            intents:
              QueryHouseStatus:
                data:
                  - sentences: ["wie geht es der badheizung"]
                    slots: {query: device-states, device: Heizung}
            """)
        #expect(Self.intent(m, "wie geht es der badheizung") == .query(QueryHouseStatusIntent(queryType: .deviceStates, device: "Heizung")))
        #expect(Self.intent(m, "Badheizung aus") == .control(HouseControlIntent(room: "Bad", action: .off, device: "Heizung")))
    }

    @Test func undJoinsCommandsAndTheHousesNamesStayWhole() throws {
        let m = try Self.matcher()
        // "Garagentor" is a name: never "Garage" and "Tor" (also a name of the door).
        guard case .commands(let commands) = m.interpret("Badheizung an und Garagentor umschalten", suggest: false) else {
            Issue.record("not understood")
            return
        }
        #expect(commands.map { $0.candidates.first?.intent } == [
            .control(HouseControlIntent(room: "Bad", action: .on, device: "Heizung")),
            .control(HouseControlIntent(action: .toggle, device: "Garagentor")),
        ])
    }

    @Test func aCoverClosedByAShareIsOpenByTheRest() throws {
        let m = try Self.matcher()
        #expect(Self.intent(m, "Rollladen zu 70 Prozent schließen")
            == .control(HouseControlIntent(device: "Rollladen", capability: .level, position: 30)))
        #expect(Self.intent(m, "Öffne den Rollladen zu 80 Prozent")
            == .control(HouseControlIntent(device: "Rollladen", capability: .level, position: 80)))
    }

    @Test func aRoutinesShortcutWithoutItsHaus() throws {
        let m = try Self.matcher()
        #expect(Self.intent(m, "guten morgen") == .runRoutine(RunRoutineIntent(routine: "Guten Morgen Haus")))
        #expect(Self.intent(m, "Gute Nacht!") == .runRoutine(RunRoutineIntent(routine: "Gute Nacht Haus")))
    }
}
