import HouseDaemon

/// The exit codes of the commands that carry out intents (`say`, `control`, `mode set`, `status`):
/// a script can tell which kind of answer is needed.
enum ExitStatus: Int32, CaseIterable {
    /// Done.
    case done = 0
    /// Refused, unsupported, failed, or not understood (the reason is printed).
    case refused = 1
    /// A value is missing; the question is printed.
    case needsValue = 3
    /// Several things fit; the question and the options are printed (answer with --choose).
    case needsChoice = 4
    /// A yes is needed (answer with --yes).
    case needsConfirmation = 5
    /// No controller answered (or the broker cannot be reached).
    case noController = 6

    init(_ status: IntentOutcome.Status) {
        switch status {
        case .done: self = .done
        case .needsValue: self = .needsValue
        case .needsChoice: self = .needsChoice
        case .needsConfirmation: self = .needsConfirmation
        case .unsupported, .refused, .failed, .inProgress: self = .refused
        }
    }

    /// From a reply's status string.
    init(reply status: IntentReply.Status) {
        self = IntentOutcome.Status(rawValue: status.rawValue).map(ExitStatus.init) ?? .refused
    }

    /// The help text listing the codes.
    static let help = "Exit status: 0 done, 1 refused/unsupported/not understood, 3 needs a value, 4 needs a choice (--choose), 5 needs a yes (--yes), 6 no controller answered."
}
