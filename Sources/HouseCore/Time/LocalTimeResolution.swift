import Foundation

/// What a local wall-clock time on a given day maps to, daylight saving included.
public enum LocalTimeResolution: Sendable, Hashable {
    /// The usual case: exactly one instant.
    case unique(Date)
    /// The time falls in a repeated (fall-back) hour and happens twice.
    case repeated(first: Date, second: Date)
    /// The time falls in a skipped (spring-forward) hour and never happens; `gapEnd` is the first
    /// valid instant after the gap (the transition itself).
    case skipped(gapEnd: Date)

    /// The earliest instant showing that time, or the end of the gap.
    public var earliest: Date {
        switch self {
        case .unique(let d): d
        case .repeated(let first, _): first
        case .skipped(let end): end
        }
    }

    /// The latest instant showing that time, or the end of the gap.
    public var latest: Date {
        switch self {
        case .unique(let d): d
        case .repeated(_, let second): second
        case .skipped(let end): end
        }
    }
}
