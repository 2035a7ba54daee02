/// Where an intent got to in the pipeline, with the whole resolution trace.
public struct IntentOutcome: Sendable, Equatable {
    /// How the request ended this time round.
    public enum Status: String, Sendable, Codable {
        /// Handled; `response` holds the answer.
        case done
        /// Handled, but a command failed; `response` says what.
        case failed
        /// A parameter is missing: answer `question`.
        case needsValue
        /// Several values fit: pick one of `options` for `pendingParameter`.
        case needsChoice
        /// Say yes (`IntentAnswers.confirmed`) to go ahead.
        case needsConfirmation
        /// A parameter cannot be used (`dialog` says why).
        case unsupported
        /// Confirm refused: not allowed from this source, or it cannot be done now.
        case refused
        /// The device is busy; try again shortly.
        case inProgress
    }

    public var intent: HouseIntent
    public var source: IntentSource
    public var status: Status
    /// Each parameter's resolution result.
    public var parameters: [ParameterResolution]
    /// The confirm result, when the pipeline got that far.
    public var confirm: ConfirmResult?
    /// The parameter a question is about.
    public var pendingParameter: String?
    /// The question to ask, if any.
    public var question: String?
    /// Options to choose from, for `needsChoice`.
    public var options: [ParameterResolution.Option]
    /// The service's answer, when handled.
    public var response: HouseResponse?
    /// Whether this was a dry run (nothing issued, nothing recorded).
    public var dryRun: Bool
    /// Outcomes of intents this one ran (a routine's intent).
    public var nested: [IntentOutcome]

    /// What to say: the answer, the question, or the reason.
    public var dialog: String

    /// The commands issued (or that would be, in a dry run).
    public var commands: [DeviceCommand] { response?.commands ?? [] }

    public init(intent: HouseIntent, source: IntentSource, status: Status, parameters: [ParameterResolution],
                confirm: ConfirmResult? = nil, pendingParameter: String? = nil, question: String? = nil,
                options: [ParameterResolution.Option] = [], response: HouseResponse? = nil, dryRun: Bool = false,
                nested: [IntentOutcome] = [], dialog: String) {
        self.intent = intent
        self.source = source
        self.status = status
        self.parameters = parameters
        self.confirm = confirm
        self.pendingParameter = pendingParameter
        self.question = question
        self.options = options
        self.response = response
        self.dryRun = dryRun
        self.nested = nested
        self.dialog = dialog
    }
}
