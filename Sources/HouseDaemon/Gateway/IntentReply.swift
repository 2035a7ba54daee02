import Foundation
import HouseCore

/// The JSON answer to an `intent/request` (and to a `set` that asked for a reply): the request id,
/// the phase reached, the result, the question and options when an answer is needed, the dialog
/// text and the resulting state.
public struct IntentReply: Sendable, Equatable, Codable {
    private enum CodingKeys: String, CodingKey {
        case phase, id, status, dialog, question, pendingParameter, options, results, pendingText, error
    }

    /// How far the request got.
    public var phase: Phase
    public var id: String
    /// How it ended.
    public var status: Status
    public var dialog: String
    public var question: String?
    public var pendingParameter: String?
    public var options: [ParameterResolution.Option]
    /// One trace per command in the request ("... and ..." gives several). Made when read (for
    /// the JSON, mostly): most replies of the bus (a `set` without `reply_to`, a routine's run)
    /// are never read, and their traces cost more than the command itself.
    public var results: [IntentTrace] {
        get {
            switch traces {
            case .made(let traces): traces
            case .pending(let outcomes): outcomes.map(IntentTrace.init)
            }
        }
        set { traces = .made(newValue) }
    }
    private var traces: Traces

    /// The traces, or the outcomes to make them from.
    private enum Traces: Sendable {
        case made([IntentTrace])
        case pending([IntentOutcome])
    }
    /// In a phrase of several commands, the words of the one the question is about: send that
    /// text again with the answer, so that the commands already done are not done twice.
    public var pendingText: String?
    /// Set when the request could not be read.
    public var error: String?

    public init(id: String, outcomes: [IntentOutcome]) {
        self.id = id
        let first = outcomes.first { $0.status != .done } ?? outcomes.last
        status = first.map { Status($0.status) } ?? .done
        phase = Self.phase(first)
        dialog = outcomes.map(\.dialog).filter { !$0.isEmpty }.joined(separator: " ")
        question = first?.question
        pendingParameter = first?.pendingParameter
        options = first?.options ?? []
        traces = .pending(outcomes)
        error = nil
        pendingText = nil
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
        traces = .made([])
        self.error = error
        pendingText = nil
    }

    static func phase(_ outcome: IntentOutcome?) -> Phase {
        guard let outcome else { return .resolve }
        switch outcome.status {
        case .needsValue, .needsChoice, .unsupported: return .resolve
        case .needsConfirmation, .refused, .inProgress: return .confirm
        case .done, .failed: return .handle
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        phase = try c.decode(Phase.self, forKey: .phase)
        id = try c.decode(String.self, forKey: .id)
        status = try c.decode(Status.self, forKey: .status)
        dialog = try c.decode(String.self, forKey: .dialog)
        question = try c.decodeIfPresent(String.self, forKey: .question)
        pendingParameter = try c.decodeIfPresent(String.self, forKey: .pendingParameter)
        options = try c.decode([ParameterResolution.Option].self, forKey: .options)
        traces = .made(try c.decode([IntentTrace].self, forKey: .results))
        pendingText = try c.decodeIfPresent(String.self, forKey: .pendingText)
        error = try c.decodeIfPresent(String.self, forKey: .error)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(phase, forKey: .phase)
        try c.encode(id, forKey: .id)
        try c.encode(status, forKey: .status)
        try c.encode(dialog, forKey: .dialog)
        try c.encodeIfPresent(question, forKey: .question)
        try c.encodeIfPresent(pendingParameter, forKey: .pendingParameter)
        try c.encode(options, forKey: .options)
        try c.encode(results, forKey: .results)
        try c.encodeIfPresent(pendingText, forKey: .pendingText)
        try c.encodeIfPresent(error, forKey: .error)
    }

    public static func == (a: IntentReply, b: IntentReply) -> Bool {
        a.phase == b.phase && a.id == b.id && a.status == b.status && a.dialog == b.dialog && a.question == b.question
            && a.pendingParameter == b.pendingParameter && a.options == b.options && a.results == b.results
            && a.pendingText == b.pendingText && a.error == b.error
    }

    /// Compact JSON with sorted keys.
    public var json: String { IntentGateway.json(self, fallback: #"{"status":"error"}"#) }
}
