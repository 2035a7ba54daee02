/// A phrase carried through the pipeline: each command it holds ("... and ...") in the order
/// typed, stopping at the first one that is not done (a question, a refusal). The one loop the
/// engine (`HouseEngine`), `housectl say --dry-run` and the phrase corpus share.
public struct PhraseRun: Sendable, Equatable {
    /// One command of the phrase and what came of it.
    public struct Step: Sendable, Equatable {
        /// The words of this command ("turn off the kitchen light").
        public var text: String
        /// The template match chosen for it.
        public var candidate: PhraseCandidate
        public var outcome: IntentOutcome
    }

    /// How the run ended.
    public enum End: Sendable, Equatable {
        /// Every command was processed, or one stopped the run with a question or a refusal in
        /// its outcome.
        case processed
        /// Nothing matched: the answer says so and offers the closest phrases.
        case notUnderstood(message: String)
        /// A command matched several templates equally well: choose one of `options` (the
        /// answer for the parameter `phrase`).
        case needsPhraseChoice(text: String, question: String, options: [ParameterResolution.Option])
        /// "Never mind", "cancel" (the grammar's `HassNevermind`): nothing is done, not even the
        /// other commands of the text.
        case dismissed
    }

    public var steps: [Step]
    public var end: End

    /// The outcomes of the processed commands, in order.
    public var outcomes: [IntentOutcome] { steps.map(\.outcome) }

    /// Runs the commands of `interpretation` (the matcher's answer) through `process`. A command
    /// that matched several templates equally well takes the one chosen in `answers` (parameter
    /// `phrase`, the option's index) or ends the run with that question.
    public static func run(
        _ interpretation: PhraseInterpretation, answers: IntentAnswers,
        process: (HouseIntent) -> IntentOutcome
    ) -> PhraseRun {
        if let message = interpretation.message { return PhraseRun(steps: [], end: .notUnderstood(message: message)) }
        if interpretation.commands.contains(where: { $0.best.intentName == CommunityGrammar.nevermind }) {
            return PhraseRun(steps: [], end: .dismissed)
        }
        var steps: [Step] = []
        for command in interpretation.commands {
            var candidate = command.best
            if command.isAmbiguous {
                let tied = command.tied
                guard let chosen = answers.choices["phrase"].flatMap(Int.init), tied.indices.contains(chosen) else {
                    let question = command.disambiguationQuestion ?? "Which did you mean?"
                    let options = tied.enumerated().map { ParameterResolution.Option(id: String($0.offset), label: $0.element.summary) }
                    return PhraseRun(steps: steps, end: .needsPhraseChoice(text: command.text, question: question, options: options))
                }
                candidate = tied[chosen]
            }
            guard let intent = candidate.intent else { continue }
            // A part that needs an answer (or fails) does not stop the others: each part is
            // resolved, confirmed and handled on its own, and the answer reports each.
            let outcome = process(intent)
            steps.append(Step(text: command.text, candidate: candidate, outcome: outcome))
        }
        return PhraseRun(steps: steps, end: .processed)
    }

    /// The answers of the steps carried out, in the grammar's words (`GrammarResponses`), and its
    /// "not understood": a step the grammar understood with its slots as said (`name`: a scene's
    /// or script's as `sceneName` gives it); one our own phrases of the grammar's language
    /// understood (phrases.de.yaml) as the grammar answers the same (`grammarAnswer`). A step not
    /// done, said in another language, or whose answer does not render, keeps ours.
    mutating func answer(in responses: GrammarResponses, sceneName: (String) -> String) {
        if case .notUnderstood = end, let sorry = responses.error("no_intent") { end = .notUnderstood(message: sorry) }
        for i in steps.indices where steps[i].outcome.status == .done {
            let candidate = steps[i].candidate
            var said: String?
            if candidate.fromGrammar {
                var slots = candidate.slots
                if let name = slots["name"], name.hasPrefix(CommunityGrammar.scenePrefix) || name.hasPrefix(CommunityGrammar.scriptPrefix) {
                    slots["name"] = sceneName(name)
                }
                said = responses.answer(intent: candidate.intentName, response: slots[CommunityGrammar.responseSlot], slots: slots)
            } else if candidate.language == responses.language, let intent = candidate.intent,
                      let equivalent = Self.grammarAnswer(intent, steps[i].outcome, sceneName: sceneName) {
                said = responses.answer(intent: equivalent.intent, response: equivalent.response, slots: ["name": equivalent.name])
            }
            if let said { steps[i].outcome.dialog = said }
        }
    }

    /// The grammar's intent and response that answer one of our intents, with the name said: one
    /// device switched on or off by its relay ("Licht eingeschaltet"), a motor's cover opened or
    /// closed ("geöffnet"), a mode set (by its first name: "Nacht aktiviert"), a routine run ("Guten
    /// Morgen Haus gestartet"). Nil where ours says more: nothing switched ("already on"), a
    /// press (an opener's answer says where the door is), stopping, toggling, everything at once,
    /// questions.
    static func grammarAnswer(_ intent: HouseIntent, _ outcome: IntentOutcome,
                              sceneName: (String) -> String) -> (intent: String, response: String, name: String)? {
        switch intent {
        case .control(let c) where c.capability == nil && !c.plural:
            let commands = outcome.commands
            guard let device = c.device, !commands.isEmpty, !commands.contains(where: { if case .pulse = $0 { true } else { false } })
            else { return nil }
            let winding = commands.contains { CoverMotor.isWindingID($0.device) }
            switch c.action {
            case .on where !winding: return ("HassTurnOn", "default", device)
            case .off where !winding: return ("HassTurnOff", "default", device)
            case .open where winding: return ("HassTurnOn", "cover", device)
            case .close where winding: return ("HassTurnOff", "cover", device)
            default: return nil
            }
        case .setMode:
            guard let id = outcome.parameters.first(where: { $0.parameter == "mode" })?.values.first?.id else { return nil }
            return ("HassTurnOn", "scene", sceneName(CommunityGrammar.scenePrefix + id))
        case .runRoutine(let r):
            return r.routine.map { ("HassTurnOn", "script", $0) }
        default:
            return nil
        }
    }
}
