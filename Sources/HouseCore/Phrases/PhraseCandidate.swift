/// One way a command's words match a template.
public struct PhraseCandidate: Sendable, Equatable {
    /// The hassil intent name of the template ("HouseControl", or a user's own).
    public var intentName: String
    /// Slot values, sorted by name: captured from the words plus the template's fixed slots.
    public var slotList: [PhraseSlot]
    /// Slot values by name.
    public var slots: [String: String] {
        Dictionary(slotList.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }
    /// The typed intent, when the intent name and slots make one (nil for unknown intents).
    public var intent: HouseIntent?
    /// The template that matched.
    public var template: String
    /// Higher is better: more literal words matched first (the more specific template), then fewer
    /// slots (longer names: "garage door" beats room "garage" + device "door").
    public var score: Int
    /// The template came from the community grammar (`CommunityGrammar`), not our phrase files.
    public var fromGrammar: Bool
    /// The language of the template's file ("en" for config/phrases.yaml, "de" for phrases.de.yaml).
    public var language: String
    /// The template's place among all templates: the earlier wins a tie (as hassil's first match).
    var order: Int

    public init(intentName: String, slots: [String: String], intent: HouseIntent?, template: String, score: Int) {
        self.init(intentName: intentName, slotList: slots.map { PhraseSlot(name: $0.key, value: $0.value) }.sorted { $0.name < $1.name },
                  intent: intent, template: template, score: score)
    }

    init(intentName: String, slotList: [PhraseSlot], intent: HouseIntent?, template: String, score: Int, fromGrammar: Bool = false,
         language: String = "en", order: Int = 0) {
        self.fromGrammar = fromGrammar
        self.language = language
        self.order = order
        self.intentName = intentName
        self.slotList = slotList
        self.intent = intent
        self.template = template
        self.score = score
    }

    /// A short human description ("turn off light in Bedroom"), used in questions.
    public var summary: String {
        intent.map(PhraseIntentBuilder.describe) ?? "\(intentName) \(slots.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))"
    }
}

/// A slot's name and value.
public struct PhraseSlot: Sendable, Equatable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// One command of a line of text with its ranked candidates.
public struct PhraseCommand: Sendable, Equatable {
    /// The command's normalised words.
    public var words: [String]
    /// Candidates, best first; never empty.
    public var candidates: [PhraseCandidate]

    public init(words: [String], candidates: [PhraseCandidate]) {
        self.words = words
        self.candidates = candidates
    }

    /// The command's normalised text.
    public var text: String { words.joined(separator: " ") }

    /// The best candidate.
    public var best: PhraseCandidate { candidates[0] }

    /// The candidates tied with the best one (the best included).
    public var tied: [PhraseCandidate] { candidates.filter { $0.score == best.score } }

    /// True when several different intents fit equally well: ask, don't guess.
    public var isAmbiguous: Bool { tied.count > 1 }

    /// The question to ask when ambiguous ("Did you mean: turn off office, or turn off everything in office?").
    public var disambiguationQuestion: String? {
        guard isAmbiguous else { return nil }
        let options = tied.map(\.summary)
        return "Did you mean: " + options.dropLast().joined(separator: ", ") + ", or " + options.last! + "?"
    }
}

/// What a line of text means.
public enum PhraseInterpretation: Sendable, Equatable {
    /// One or more commands, in the order typed.
    case commands([PhraseCommand])
    /// Nothing matched; the closest known phrases, best first.
    case noMatch(text: String, suggestions: [String])

    /// The commands (empty when nothing matched).
    public var commands: [PhraseCommand] {
        if case .commands(let c) = self { return c }
        return []
    }

    /// The best intent of each command, when every command has a typed intent.
    public var intents: [HouseIntent] { commands.compactMap { $0.best.intent } }

    /// A clear answer for text that matched nothing.
    public var message: String? {
        guard case .noMatch(let text, let suggestions) = self else { return nil }
        let head = text.isEmpty ? "Nothing to understand." : "I don't understand \"\(text)\"."
        // Nothing close: say what the house is for, so "I don't understand" is not a dead end.
        guard !suggestions.isEmpty else {
            return head + " I can switch the devices of the house, set its modes, run its routines and answer questions about them, e.g. \"what's on\"."
        }
        return head + " Closest phrases I know: " + suggestions.map { "\"\($0)\"" }.joined(separator: ", ") + "."
    }
}
