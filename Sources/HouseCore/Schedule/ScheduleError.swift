/// Errors of the routine scheduler and relevance queries.
public enum ScheduleError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A preview range whose end is not after its start.
    case invalidRange(from: String, to: String)
    /// A date or time the user typed that is not `YYYY-MM-DD` or `YYYY-MM-DD HH:MM`.
    case invalidDateTime(String)
    /// A count that must be positive.
    case invalidCount(Int)

    public var description: String {
        switch self {
        case .invalidRange(let from, let to): "the range end (\(to)) must be after its start (\(from))"
        case .invalidDateTime(let text): "'\(text)' is not a date and time; expected YYYY-MM-DD or YYYY-MM-DD HH:MM"
        case .invalidCount(let n): "expected a positive count, got \(n)"
        }
    }
}
