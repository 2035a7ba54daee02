/// Requests: an `intent/request` (a typed intent or a phrase, every command it holds) and a
/// relay command from another node.
extension HouseEngine {
    /// Answers an `intent/request`: a typed intent, or a phrase (every command it holds).
    func answer(_ request: IntentRequest, source: IntentSource) -> IntentReply {
        let answers = request.intentAnswers
        switch request.body {
        case .intent(let intent):
            return IntentReply(id: request.id, outcomes: [carryOut(intent, source: source, answers: answers, requestID: request.id)])
        case .text(let text):
            return answer(text: text, id: request.id, source: source, answers: answers)
        case .history:
            return IntentReply(id: request.id, error: "the history is answered by the state store, not the engine")
        }
    }

    /// Matches `text` against the phrase templates and carries out every command it holds
    /// ("... and ..."). Real ambiguity becomes a question; text that matches nothing is answered
    /// with the closest phrases known. In a house that speaks another language than English, what
    /// the community grammar understood is answered in the grammar's words where it has them.
    func answer(text: String, id: String, source: IntentSource, answers: IntentAnswers) -> IntentReply {
        let run = run(phrase: text, answers: answers) { intent in carryOut(intent, source: source, answers: answers, requestID: id) }
        switch run.end {
        case .processed:
            return IntentReply(id: id, steps: run.steps)
        case .notUnderstood(let message):
            return IntentReply(id: id, status: .unsupported, phase: .resolve, dialog: message)
        case .needsPhraseChoice(_, let question, let options):
            var reply = IntentReply(id: id, status: .needsChoice, phase: .resolve, dialog: question)
            reply.question = question
            reply.pendingParameter = "phrase"
            reply.options = options
            return reply
        case .dismissed:
            let said = grammarAnswers.map { $0.answer(intent: CommunityGrammar.nevermind, response: nil, slots: [:]) ?? "" }
            return IntentReply(id: id, status: .done, phase: .handle, dialog: said ?? "OK, never mind.")
        }
    }

    /// The one loop over a phrase's commands (`PhraseRun`), each taken by `step`, with the
    /// answers in the house's language: what `answer(text:)` and `process(phrase:)` share.
    func run(phrase text: String, answers: IntentAnswers, _ step: (HouseIntent) -> IntentOutcome) -> PhraseRun {
        guard let matcher else { return PhraseRun(steps: [], end: .notUnderstood(message: "This controller has no phrase templates loaded.")) }
        var run = PhraseRun.run(matcher.interpret(text), answers: answers, process: step)
        speak(&run)
        return run
    }

    /// The community grammar's answers, where the house speaks another language than English:
    /// our own answers say which device and what it did, so an English house keeps them.
    var grammarAnswers: GrammarResponses? {
        matcher?.phraseSet.responses.flatMap { $0.language.hasPrefix("en") ? nil : $0 }
    }

    /// `run`'s answers in the grammar's language (`grammarAnswers`), a mode by its first name.
    func speak(_ run: inout PhraseRun) {
        guard let grammarAnswers else { return }
        run.answer(in: grammarAnswers) { name in
            if name.hasPrefix(CommunityGrammar.scenePrefix) {
                let id = ModeID(String(name.dropFirst(CommunityGrammar.scenePrefix.count)))
                return configuration.mode(id: id)?.names.first ?? id.rawValue
            }
            return String(name.dropFirst(CommunityGrammar.scriptPrefix.count))
        }
    }

    /// A relay command from the controller that resolved the intent on another node; a repeat
    /// (the same request carried out again after a takeover) is carried out once.
    func peerRelay(_ command: PeerRelayCommand) -> IntentReply {
        let key = command.id.map { "relay:" + $0 }
        if let key, let first = repeated(key) {
            // The sender may think the repeat did something: the true state again.
            if let device = configuration.device(id: command.device), device.relay != nil {
                publishState(state(of: device.id), of: device)
            }
            return first
        }
        guard let response = handlePeer(command) else {
            effects.log(.warning, "refused: relay command for \(command.device), which is not a relay of node \(node?.rawValue ?? "?")")
            return IntentReply(id: "", status: .unsupported, phase: .resolve, dialog: "not a relay of this node")
        }
        effects.log(.info, "relay command from a peer: \(command.device): \(response.dialog)")
        let reply = IntentReply(id: "", status: response.code == .success ? .done : .failed, phase: .handle, dialog: response.dialog)
        remember(reply, for: key)
        return reply
    }
}
