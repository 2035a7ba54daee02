/// Why a suggestion could not be listed, accepted or dismissed; the text says what to do.
public enum SuggestionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configuration (house.yaml, or housectl's file beside it) does not load.
    case configuration(ConfigurationError)
    /// `suggestions: {enabled: false}`.
    case off
    /// No suggestion has this id now; `current` are those that do.
    case unknown(String, current: [String])
    /// It was accepted before.
    case alreadyAccepted(String, file: String)
    /// It was dismissed before.
    case alreadyDismissed(String)
    /// Accepting it would give a configuration that does not load (nothing was written).
    case wouldNotLoad(String, ConfigurationError)
    /// The history could not be read.
    case history(String)
    /// housectl's file could not be written.
    case cannotWrite(path: String, reason: String)
    /// The page: answering changes the house's configuration, which needs a signed-in user.
    case notSignedIn

    public var description: String {
        switch self {
        case .configuration(let e): e.description
        case .off: "suggestions are off (suggestions: {enabled: false} in house.yaml)"
        case .unknown(let id, let current):
            "no suggestion '\(id)' now" + (current.isEmpty ? " (there are none)" : "; the suggestions now: \(current.joined(separator: ", "))")
        case .alreadyAccepted(let id, let file): "suggestion \(id) was accepted already: what it suggested is in \(file)"
        case .alreadyDismissed(let id): "suggestion \(id) was dismissed already"
        case .wouldNotLoad(let id, let e): "accepting \(id) would give a configuration that does not load, so nothing was written:\n\(e)"
        case .history(let reason): reason
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        case .notSignedIn: "answering a suggestion changes the house's configuration: it needs a signed-in user (web: password_file in house.yaml)"
        }
    }
}
