/// One parameter's resolution result, in a form every front end can print or encode: the
/// resolution trace shown by `--dry-run`, the MQTT response, and the tests all read this.
public struct ParameterResolution: Sendable, Equatable, Codable {
    /// The result kinds of `ResolutionResult`.
    public enum Kind: String, Sendable, Codable {
        case success, needsValue, disambiguation, confirmationRequired, unsupported, notRequired
    }

    /// Something the user can pick: `id` goes back in `IntentAnswers.choices`, `label` is shown.
    public struct Option: Sendable, Equatable, Codable {
        public var id: String
        public var label: String

        public init(id: String, label: String) {
            self.id = id
            self.label = label
        }
    }

    /// Parameter name: room, device, action, mode, duration, rooms, queryType, timeRange, routine.
    public var parameter: String
    public var kind: Kind
    /// The resolved value(s), for success and confirmationRequired.
    public var values: [Option]
    /// The question to ask, for needsValue, disambiguation and confirmationRequired.
    public var question: String?
    /// The options to choose from, for disambiguation.
    public var options: [Option]
    /// Why the value cannot be used, for unsupported.
    public var reason: String?

    public init<V>(parameter: String, result: ResolutionResult<V>, describe: (V) -> [Option]) {
        self.parameter = parameter
        self.values = []
        self.options = []
        switch result {
        case .success(let v):
            kind = .success
            values = describe(v)
        case .needsValue(let q):
            kind = .needsValue
            question = q
        case .disambiguation(let opts, let q):
            kind = .disambiguation
            options = opts.flatMap(describe)
            question = q
        case .confirmationRequired(let v, let q):
            kind = .confirmationRequired
            values = describe(v)
            question = q
        case .unsupported(let r):
            kind = .unsupported
            reason = r
        case .notRequired:
            kind = .notRequired
        }
    }

    /// Whether the pipeline must stop here and ask or refuse.
    public var isBlocking: Bool { kind == .needsValue || kind == .disambiguation || kind == .unsupported }

    /// One line for the resolution trace: `device: disambiguation [bedroom-ceiling-light, ...] "Which ...?"`.
    public var traceLine: String {
        var s = "\(parameter): \(kind.rawValue)"
        if !values.isEmpty { s += " " + values.map(\.id).joined(separator: ", ") }
        if !options.isEmpty { s += " [" + options.map(\.id).joined(separator: ", ") + "]" }
        if let reason { s += " (\(reason))" }
        if let question { s += " \"\(question)\"" }
        return s
    }
}
