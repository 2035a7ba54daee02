/// The resolution trace of one request, for people (`text`) and machines (`Codable`, the
/// `--json` output): each parameter's result, the confirm result, the commands, the answer.
public struct IntentTrace: Sendable, Equatable, Codable {
    public struct Confirm: Sendable, Equatable, Codable {
        /// ready, inProgress, failure or failureRequiresPermission.
        public var result: String
        public var reason: String?
    }

    public struct Response: Sendable, Equatable, Codable {
        public var code: HouseResponse.Code
        public var mode: ModeID?
        public var energyKWh: Double?
        public var devices: [HouseResponse.DeviceStatus]
    }

    public var intent: String
    public var source: IntentSource
    public var dryRun: Bool
    public var status: IntentOutcome.Status
    public var parameters: [ParameterResolution]
    public var confirm: Confirm?
    public var commands: [String]
    public var pendingParameter: String?
    public var question: String?
    public var options: [ParameterResolution.Option]
    public var answer: String
    public var response: Response?
    public var nested: [IntentTrace]

    public init(_ outcome: IntentOutcome) {
        intent = outcome.intent.description
        source = outcome.source
        dryRun = outcome.dryRun
        status = outcome.status
        parameters = outcome.parameters
        confirm = outcome.confirm.map { c in
            switch c {
            case .ready: Confirm(result: "ready")
            case .inProgress: Confirm(result: "inProgress")
            case .failure(let r): Confirm(result: "failure", reason: r)
            case .failureRequiresPermission(let p): Confirm(result: "failureRequiresPermission", reason: p)
            }
        }
        commands = outcome.commands.map(\.description)
        pendingParameter = outcome.pendingParameter
        question = outcome.question
        options = outcome.options
        answer = outcome.dialog
        response = outcome.response.map { Response(code: $0.code, mode: $0.mode, energyKWh: $0.energyKWh, devices: $0.devices) }
        nested = outcome.nested.map(IntentTrace.init)
    }

    /// The trace as lines of text.
    public var text: String {
        var lines = ["intent: \(intent) (from \(source.rawValue)\(dryRun ? ", dry run" : ""))", "resolve:"]
        lines += parameters.map { "  " + $0.traceLine }
        if let confirm {
            lines.append("confirm: \(confirm.result)" + (confirm.reason.map { " (\($0))" } ?? ""))
        } else {
            lines.append("confirm: not reached")
        }
        for n in nested { lines += n.text.split(separator: "\n").map { "  | " + $0 } }
        if nested.isEmpty {
            lines.append(dryRun ? "commands (not issued, dry run):" : "commands:")
            lines += commands.isEmpty ? ["  (none)"] : commands.map { "  " + $0 }
        }
        if !options.isEmpty {
            lines.append("options for \(pendingParameter ?? "?"): " + options.map { "\($0.id) (\($0.label))" }.joined(separator: ", "))
        }
        lines.append("status: \(status.rawValue)")
        lines.append("answer: \(answer)")
        return lines.joined(separator: "\n")
    }
}
