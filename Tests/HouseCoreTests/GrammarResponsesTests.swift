import Foundation
import Testing
@testable import HouseCore
import HouseTesting

/// A house that speaks German or French answers in the community grammar's words; "never mind"
/// does nothing; an English house keeps our own answers.
@Suite("Grammar responses: answers in the house's language")
struct GrammarResponsesTests {
    @Test func rendersTheJinjaTheResponsesUse() {
        let slots = ["name": "Deckenlicht", "device_class": "shutter", "area": "küche"]
        #expect(GrammarResponses.render("{{ slots.name }} eingeschaltet", slots: slots) == "Deckenlicht eingeschaltet")
        #expect(GrammarResponses.render("Licht eingeschaltet", slots: slots) == "Licht eingeschaltet")
        let table = """
            {% set translations = {
              "blind": "Jalousie",
              'shutter': 'Rollladen'
            } %} {{ translations.get(slots.device_class, slots.device_class) }} geöffnet
            """
        #expect(GrammarResponses.render(table, slots: slots) == "Rollladen geöffnet")
        #expect(GrammarResponses.render(table, slots: ["device_class": "awning"]) == "awning geöffnet")
        #expect(GrammarResponses.render("{% set t = {'shutter': 'volet'} %}{{ t[slots.device_class] | capitalize }}", slots: slots) == "Volet")
        #expect(GrammarResponses.render("{{ slots.area | upper }}{# a comment #}", slots: slots) == "KÜCHE")
        #expect(GrammarResponses.render("", slots: slots) == "")
        // What it does not render, it says so (nil): the caller keeps its own answer.
        #expect(GrammarResponses.render("{% if slots.name %}x{% endif %}", slots: slots) == nil)
        #expect(GrammarResponses.render("{{ state.state_with_unit }}", slots: slots) == nil)
        #expect(GrammarResponses.render("{{ slots.name | round(1) }}", slots: slots) == nil)
        #expect(GrammarResponses.render("{{ slots.missing }}", slots: slots) == nil)
        #expect(GrammarResponses.render("{{ slots.name", slots: slots) == nil)
    }

    @Test func aResponseNameFallsBackToTheDefault() {
        let responses = GrammarResponses(language: "de", intents: ["HassTurnOn": ["default": "{{ slots.name }} an", "light": "Licht an"]])
        #expect(responses.answer(intent: "HassTurnOn", response: "light", slots: [:]) == "Licht an")
        #expect(responses.answer(intent: "HassTurnOn", response: "fan", slots: ["name": "Lüfter"]) == "Lüfter an")
        #expect(responses.answer(intent: "HassTurnOff", response: nil, slots: [:]) == nil)
    }

    static let german = """
        house: {name: Haus, timezone: Europe/Berlin, latitude: 52.5, longitude: 13.4, language: de}
        nodes: [{id: pi-main, board: generic-8ch-optocoupler}]
        rooms: [{id: kueche, name: Küche}, {id: wohnzimmer, name: Wohnzimmer}]
        devices:
          - {id: kuechenlicht, room: kueche, kind: light, names: [Deckenlicht], relay: {node: pi-main, channel: 1}}
          - {id: ventilator, room: kueche, kind: fan, names: [Ventilator], relay: {node: pi-main, channel: 2}}
          - {id: rollladen, room: wohnzimmer, kind: cover, device_class: shutter, names: [Rollladen],
             motor: {node: pi-main, up: 3, down: 4, open_time: 25s, close_time: 22s}}
        modes:
          - {id: abend, names: [Abend], devices: {kuechenlicht: ON}}
        """

    /// The engine of `yaml` with the grammar of `language` (nil when its file is missing outside CI).
    /// `own`: with our own phrases for the language too (config/phrases.yaml, phrases.LANGUAGE.yaml).
    static func harness(_ yaml: String, language: String, own: Bool = false) throws -> HouseHarness? {
        guard let grammar = try HouseFixtures.grammar(language) else { return nil }
        let configuration = try ConfigurationLoader().load(yaml: yaml, file: "test.yaml", boards: HouseFixtures.boards())
        let ours = own ? try PhraseSet.loadOwn(in: URL(fileURLWithPath: HouseFixtures.repositoryRoot + "/config"), language: language) : PhraseSet()
        return try HouseHarness(configuration: configuration, phrases: ours.merging(grammar.phraseSet))
    }

    static func say(_ text: String, _ h: HouseHarness) async -> IntentReply {
        await h.engine.perform(.request(IntentRequest(id: UUID().uuidString, body: .text(text)), source: .cli)).reply
    }

    @Test func aGermanHouseAnswersInGerman() async throws {
        guard let h = try Self.harness(Self.german, language: "de") else { return }
        let light = await Self.say("Schalte das Deckenlicht ein", h)
        #expect(light.status == .done)
        #expect(light.dialog == "Licht eingeschaltet")
        #expect(h.relays.calls.count == 1)
        let fan = await Self.say("Mach den Ventilator aus", h)
        #expect(fan.dialog == "Ventilator ausgeschaltet")
        let all = await Self.say("Schalte alle Lichter aus", h)
        #expect(all.dialog == "Alle Lichter ausgeschaltet")
        let shutter = await Self.say("Öffne die Rollläden im Wohnzimmer", h)
        #expect(shutter.status == .done)
        #expect(shutter.dialog == "Rollladen geöffnet")
        let mode = await Self.say("Aktiviere Abend", h)
        #expect(mode.dialog == "Abend aktiviert")
        // Two commands joined by "und", each answered.
        let both = await Self.say("Schalte das Deckenlicht aus und schließe den Rollladen", h)
        #expect(both.results.count == 2)
        #expect(both.status == .done)
        let sorry = await Self.say("blablabla", h)
        #expect(sorry.status == .unsupported)
        #expect(sorry.dialog == "Entschuldigung, das habe ich nicht verstanden")
        // Our own German phrases (phrases.de.yaml) are answered as the grammar answers the same.
        guard let ours = try Self.harness(Self.german, language: "de", own: true) else { return }
        let compound = await Self.say("Küchendeckenlicht an", ours)
        #expect(compound.status == .done)
        #expect(compound.dialog == "Deckenlicht eingeschaltet")
        let evening = await Self.say("Abendmodus", ours)
        #expect(evening.status == .done)
        #expect(evening.dialog == "Abend aktiviert")
        #expect(await Self.say("Stell das Haus auf abend", ours).dialog == "Abend aktiviert")
        // Where ours says more, or it was said in English, ours stays: a stop, an English phrase.
        let stop = await Self.say("Rollladen stopp", ours)
        #expect(stop.status == .done && !stop.dialog.contains("ausgeschaltet"), "\(stop.dialog)")
        let english = await Self.say("turn on the Deckenlicht", ours)
        #expect(english.status == .done && english.dialog.contains("on"), "\(english.dialog)")
        // A refusal the grammar has no words for keeps ours (it names the device and why).
        let dim = await Self.say("Dimme das Deckenlicht auf 50%", h)
        #expect(dim.status == .unsupported)
        #expect(dim.dialog.contains("Deckenlicht"))
    }

    @Test func neverMindDoesNothingInAnyLanguage() async throws {
        guard let h = try Self.harness(Self.german, language: "de") else { return }
        let calls = h.relays.calls.count
        let reply = await Self.say("vergiss es und schalte das Deckenlicht ein", h)
        #expect(reply.status == .done)
        #expect(reply.dialog == "")
        #expect(h.relays.calls.count == calls)
        let french = try #require(try Self.harness(Self.german.replacingOccurrences(of: "language: de", with: "language: fr"), language: "fr"))
        let oublie = await Self.say("oublie", french)
        #expect(oublie.status == .done)
        #expect(french.relays.calls.isEmpty)
        guard let english = try Self.harness(Self.german.replacingOccurrences(of: "language: de", with: "language: en"), language: "en") else { return }
        let never = await Self.say("never mind", english)
        #expect(never.status == .done)
        #expect(never.dialog == "OK, never mind.")
    }

    @Test func aFrenchHouseAnswersInFrenchAnEnglishOneInOurWords() async throws {
        let yaml = Self.german.replacingOccurrences(of: "language: de", with: "language: fr")
            .replacingOccurrences(of: "Deckenlicht", with: "plafonnier").replacingOccurrences(of: "Rollladen]", with: "volet]")
        guard let fr = try Self.harness(yaml, language: "fr") else { return }
        #expect(await Self.say("Allume le plafonnier", fr).dialog == "Allumé")
        #expect(await Self.say("Ferme le volet", fr).dialog == "Fermeture en cours")
        #expect(await Self.say("blabla", fr).dialog == "Désolé, je n'ai pas compris")
        let english = try #require(try Self.harness(yaml.replacingOccurrences(of: "language: fr", with: "language: en"), language: "en"))
        let on = await Self.say("turn on the plafonnier", english)
        #expect(on.status == .done)
        #expect(on.dialog.hasPrefix("OK, "))
    }
}
