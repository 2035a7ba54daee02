import Foundation

/// When a sun event happens on a given day, or why it does not.
///
/// Near the poles the sun can stay above (polar day, midnight sun) or below (polar night) the
/// altitude that defines an event for a whole day; those days get an explicit answer, never NaN.
public enum SunOccurrence: Sendable, Hashable, CustomStringConvertible {
    /// The event happens at this instant.
    case at(Date)
    /// The sun stays above the event's altitude all day (polar day for sunrise/sunset).
    case sunAlwaysAbove
    /// The sun stays below the event's altitude all day (polar night for sunrise/sunset).
    case sunAlwaysBelow

    /// The instant, when the event happens.
    public var date: Date? {
        if case .at(let d) = self { return d }
        return nil
    }

    public var description: String {
        switch self {
        case .at(let d): return d.description
        case .sunAlwaysAbove: return "no event (the sun stays above that altitude all day)"
        case .sunAlwaysBelow: return "no event (the sun stays below that altitude all day)"
        }
    }
}
