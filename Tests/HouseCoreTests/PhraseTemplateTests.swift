import Testing
@testable import HouseCore

@Suite("Phrase templates: parsing and normalisation")
struct PhraseTemplateTests {
    @Test func parsesAlternativesOptionalsListsAndRules() throws {
        let expr = try PhraseExpression.parse("(turn|switch) {action} [the] {devices:device} <in_room>")
        #expect(expr == .sequence([
            .alternatives([.words(["turn"]), .words(["switch"])]),
            .list(list: "action", slot: "action"),
            .optional(.words(["the"])),
            .list(list: "devices", slot: "device"),
            .rule("in_room"),
        ]))
    }

    @Test func permutationsExpandToEveryOrder() throws {
        let expr = try PhraseExpression.parse("(a;b)")
        #expect(expr == .alternatives([.words(["a", "b"]), .words(["b", "a"])]))
    }

    @Test func partsWrittenTogetherJoinIntoOneWord() throws {
        #expect(try PhraseExpression.parse("fan[s]") == .alternatives([.words(["fan"]), .words(["fans"])]))
        #expect(try PhraseExpression.parse("turn on the fan[s] now") == .sequence([
            .words(["turn", "on", "the"]), .alternatives([.words(["fan"]), .words(["fans"])]), .words(["now"]),
        ]))
        #expect(try PhraseExpression.parse("(Ziel|Soll)temperatur") == .alternatives([.words(["zieltemperatur"]), .words(["solltemperatur"])]))
        // A space inside the optional part keeps the words apart: nothing to spell out.
        #expect(try PhraseExpression.parse("[den ]{area}") == .sequence([.optional(.words(["den"])), .list(list: "area", slot: "area")]))
        #expect(try PhraseExpression.parse("Helligkeit[ (a|b)][ hier] auf") == .sequence([
            .words(["helligkeit"]), .optional(.alternatives([.words(["a"]), .words(["b"])])), .optional(.words(["hier"])), .words(["auf"]),
        ]))
        // ... unless the part before it may be missing and is joined to a word: "x{area}".
        #expect(try PhraseExpression.parse("x[den ]{area}") == .alternatives([
            .list(list: PhraseList.affixedName("area", prefix: "x", suffix: ""), slot: "area"),
            .sequence([.words(["xden"]), .list(list: "area", slot: "area")]),
        ]))
        // A rule joined to a word is spelled out; on its own it stays a rule.
        #expect(try PhraseExpression.parse("<r>s", rules: ["r": "(a|b)"]) == .alternatives([.words(["as"]), .words(["bs"])]))
        #expect(try PhraseExpression.parse("<r> s") == .sequence([.rule("r"), .words(["s"])]))
        #expect(throws: PhraseError.self) { try PhraseExpression.parse("<unknown>s") }
    }

    @Test func textJoinedToAListMakesAnAffixedList() throws {
        let affixed = PhraseList.affixedName("area", prefix: "l'", suffix: "")
        #expect(try PhraseExpression.parse("de l'{area}") == .sequence([.words(["de"]), .list(list: affixed, slot: "area")]))
        // Signs that are no word ("50%", "21°") leave the list as it is.
        #expect(try PhraseExpression.parse("{brightness}%") == .list(list: "brightness", slot: "brightness"))
        let lists = ["area": PhraseList(values: [PhraseListValue(spoken: "entrée", value: "Hall")])]
        #expect(PhraseList.named(affixed, in: lists)?.values == [PhraseListValue(spoken: "l'entrée", value: "Hall")])
        let set = PhraseSet(groups: [PhraseTemplateGroup(intent: "Light", sentences: ["allume la lumière de [<le>]{area}"])],
                            expansionRules: ["le": "(le |la |l')"])
        let matcher = try PhraseMatcher(phraseSet: set, lists: lists)
        #expect(matcher.bestMatch("allume la lumière de l'entrée")?.slots == ["area": "Hall"])
        #expect(matcher.bestMatch("allume la lumière de la entrée")?.slots == ["area": "Hall"])
        #expect(matcher.bestMatch("allume la lumière de entrée")?.slots == ["area": "Hall"])
        #expect(matcher.bestMatch("allume la lumière de l entrée") == nil)
    }

    @Test func domainListsAreTheUnionOfTheirDomains() {
        let lists = [
            "name": PhraseList(values: []),
            "name@light": PhraseList(values: [PhraseListValue(spoken: "lamp", value: "lamp")]),
            "name@fan": PhraseList(values: [PhraseListValue(spoken: "fan", value: "fan")]),
        ]
        #expect(PhraseList.named("name@fan+light+valve", in: lists)?.values.map(\.value) == ["fan", "lamp"])
        #expect(PhraseList.named("name@valve", in: lists)?.values == [])
        #expect(PhraseList.named("other@light", in: lists) == nil)
    }

    @Test func templateWordsAreNormalised() throws {
        #expect(try PhraseExpression.parse("What's ON?") == .words(["whats", "on"]))
    }

    @Test(arguments: ["(turn on", "turn on]", "{room", "<rule", "{}", "<>", "turn } on", "(a|b;c)"])
    func syntaxErrorsAreReported(_ template: String) {
        #expect(throws: PhraseError.self) { try PhraseExpression.parse(template) }
    }

    @Test func syntaxErrorSaysWhere() {
        do {
            _ = try PhraseExpression.parse("turn [on")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("missing ']'"))
            #expect(error.description.contains("turn [on"))
        }
    }

    @Test func normaliserHandlesCasePunctuationSpacesAndApostrophes() {
        #expect(PhraseNormalizer.tokens("  We're   OUT, for 1.5 hours!! ") == ["were", "out", "for", "1.5", "hours"])
        #expect(PhraseNormalizer.tokens("What’s on in the living-room?") == ["whats", "on", "in", "the", "living", "room"])
        #expect(PhraseNormalizer.tokens("Café lights ON") == ["café", "lights", "on"])
        #expect(PhraseNormalizer.tokens("end.") == ["end"])
        #expect(PhraseNormalizer.tokens("") == [])
    }

    @Test func pluralisesSimpleEnglish() {
        #expect(PhraseVocabulary.pluralize("light") == "lights")
        #expect(PhraseVocabulary.pluralize("ceiling light") == "ceiling lights")
        #expect(PhraseVocabulary.pluralize("switch") == "switches")
        #expect(PhraseVocabulary.pluralize("battery") == "batteries")
        #expect(PhraseVocabulary.pluralize("blinds") == "blinds")
        #expect(PhraseVocabulary.pluralize("tv") == "tvs")
    }
}

@Suite("Spoken numbers and durations")
struct PhraseSpokenNumbersTests {
    static func duration(_ text: String) -> Int? {
        let words = PhraseNormalizer.tokens(text)
        return PhraseSpokenNumbers.durations(words, from: 0).first { $0.end == words.count }?.seconds
    }

    @Test(arguments: [
        ("two hours", 7200), ("90 minutes", 5400), ("1h30", 5400), ("an hour", 3600), ("half an hour", 1800),
        ("an hour and a half", 5400), ("two and a half hours", 9000), ("1.5 hours", 5400), ("2 hours 15 minutes", 8100),
        ("an hour and fifteen minutes", 4500), ("1 hour 30", 5400), ("twenty five minutes", 1500), ("a day", 86400),
        ("a couple of hours", 7200), ("45min", 2700), ("a half hour", 1800),
    ])
    func durations(_ text: String, _ seconds: Int) {
        #expect(Self.duration(text) == seconds, "\(text)")
    }

    @Test(arguments: ["hours", "two", "for two hours", "1h30x", "", "99999999999999999999h", "99999999999.5 hours",
                      "9999999999999999999 hours", "400 days"])
    func notDurations(_ text: String) {
        #expect(Self.duration(text) == nil, "\(text)")
    }

    @Test func numbersInWordsAndDigits() {
        #expect(PhraseSpokenNumbers.numbers(["twenty", "five"], from: 0).map(\.value) == [20, 25])
        #expect(PhraseSpokenNumbers.numbers(["12"], from: 0).map(\.value) == [12])
        #expect(PhraseSpokenNumbers.numbers(["twelve"], from: 0).map(\.value) == [12])
        #expect(PhraseSpokenNumbers.numbers(["lamp"], from: 0).isEmpty)
        #expect(PhraseSpokenNumbers.numbers(["12abc"], from: 0).isEmpty)
        #expect(PhraseSpokenNumbers.numbers(["99999999999999999999999"], from: 0).isEmpty)
    }
}
