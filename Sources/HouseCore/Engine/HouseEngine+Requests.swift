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
            switch carryOut(text: text, source: source, answers: answers, requestID: request.id) {
            case .success(let steps): return IntentReply(id: request.id, steps: steps)
            case .failure(let refusal): return refusal.reply(id: request.id)
            }
        case .history:
            return IntentReply(id: request.id, error: "the history is answered by the state store, not the engine")
        }
    }

    /// Matches `text` against the phrase templates and carries out every command it holds
    /// ("... and ..."). Real ambiguity becomes a question; text that matches nothing is answered
    /// with the closest phrases known.
    func carryOut(text: String, source: IntentSource, answers: IntentAnswers = .none,
                  requestID: String? = nil) -> Result<[PhraseRun.Step], PhraseRefusal> {
        guard let matcher else {
            return .failure(PhraseRefusal(status: .unsupported, dialog: "This controller has no phrase templates loaded."))
        }
        let run = PhraseRun.run(matcher.interpret(text), answers: answers) { intent in
            carryOut(intent, source: source, answers: answers, requestID: requestID)
        }
        switch run.end {
        case .processed:
            return .success(run.steps)
        case .notUnderstood(let message):
            return .failure(PhraseRefusal(status: .unsupported, dialog: message))
        case .needsPhraseChoice(_, let question, let options):
            return .failure(PhraseRefusal(status: .needsChoice, dialog: question, question: question,
                                          pendingParameter: "phrase", options: options))
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

/// Why a phrase did not become intents: nothing matched, or it needs a choice first.
public struct PhraseRefusal: Error, Sendable, Equatable {
    public var status: IntentReply.Status
    public var dialog: String
    public var question: String? = nil
    public var pendingParameter: String? = nil
    public var options: [ParameterResolution.Option] = []

    func reply(id: String) -> IntentReply {
        var r = IntentReply(id: id, status: status, phase: .resolve, dialog: dialog)
        r.question = question
        r.pendingParameter = pendingParameter
        r.options = options
        return r
    }
}
