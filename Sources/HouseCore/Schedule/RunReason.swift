import Foundation

/// Why a run is due when it is.
public enum RunReason: Sendable, Hashable, CustomStringConvertible {
    /// At its `run_at`.
    case scheduled
    /// Its `run_at` fell in a skipped daylight-saving hour; it runs at the end of the gap.
    case afterDaylightSavingGap(wanted: TimeOfDay)
    /// Missed while the controller was down (its nominal time), run at start because its window is
    /// still open.
    case catchUp(missed: Date)

    public var description: String {
        switch self {
        case .scheduled: "scheduled"
        case .afterDaylightSavingGap(let t): "\(t) skipped by daylight saving; run after the gap"
        case .catchUp(let missed): "catch-up of the run missed at \(missed)"
        }
    }
}
