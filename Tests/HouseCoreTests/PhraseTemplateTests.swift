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
        #expect(expr == .alternatives([.sequence([.words(["a"]), .words(["b"])]), .sequence([.words(["b"]), .words(["a"])])]))
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
