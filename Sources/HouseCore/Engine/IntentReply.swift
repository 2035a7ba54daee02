import Foundation

/// The JSON answer to an `intent/request` (and to a `set` that asked for a reply): the request id,
/// the phase reached, the result, the question and options when an answer is needed, the dialog
/// text and the resulting state.
public struct IntentReply: Sendable, Equatable, Codable {
    /// How far the request got.
    public var phase: Phase
    public var id: String
    /// How it ended.
    public var status: Status
    public var dialog: String
    public var question: String?
    public var pendingParameter: String?
    public var options: [ParameterResolution.Option]
    /// One trace per command in the request ("... and ..." gives several), made when read (see
    /// `Traces`).
    @Traces public var results: [IntentTrace]
    /// In a phrase of several commands, the words of the one the question is about: send that
    /// text again with the answer, so that the commands already done are not done twice.
    public var pendingText: String?
    /// Set when the request could not be read.
    public var error: String?
    /// Who coordinates the house and which nodes are online (the answer to a status request).
    public var coordination: CoordinationReport?

    public init(id: String, outcomes: [IntentOutcome]) {
        self.id = id
        let first = outcomes.first { $0.status != .done } ?? outcomes.last
        status = first.map { Status($0.status) } ?? .done
        phase = Self.phase(first)
        dialog = outcomes.map(\.dialog).filter { !$0.isEmpty }.joined(separator: " ")
        question = first?.question
        pendingParameter = first?.pendingParameter
        options = first?.options ?? []
        _results = Traces(outcomes: outcomes)
        error = nil
        pendingText = nil
        coordination = nil
    }

    /// The reply to a phrase: one result per command it held.
    public init(id: String, steps: [PhraseRun.Step]) {
        self.init(id: id, outcomes: steps.map(\.outcome))
        if steps.count > 1, let pending = steps.first(where: { $0.outcome.status != .done && $0.outcome.question != nil }) {
            pendingText = pending.text
        }
    }

    /// A reply that is no intent's: a status and a text.
    public init(id: String, status: Status, phase: Phase, dialog: String) {
        self.init(id: id, outcomes: [])
        self.status = status
        self.phase = phase
        self.dialog = dialog
    }

    public init(id: String, error: String, dialog: String? = nil) {
        self.id = id
        phase = .resolve
        status = .error
        self.dialog = dialog ?? error
        question = nil
        pendingParameter = nil
        options = []
        results = []
        self.error = error
        pendingText = nil
        coordination = nil
    }

    static func phase(_ outcome: IntentOutcome?) -> Phase {
        guard let outcome else { return .resolve }
        switch outcome.status {
        case .needsValue, .needsChoice, .unsupported: return .resolve
        case .needsConfirmation, .refused, .inProgress: return .confirm
        case .done, .failed: return .handle
        }
    }

    /// The reply to what nobody asked (a state from elsewhere, a tick, a plain `set`).
    public static let none = IntentReply(id: "", outcomes: [])

    /// Compact JSON with sorted keys.
    public var json: String { sortedJSON(fallback: #"{"status":"error"}"#) }
}
