import Foundation

/// Why a habit was found: how often it was seen of how many chances, when, and how closely.
public struct HabitEvidence: Sendable, Hashable {
    /// The days (time-of-day habits) or the times (sequences, durations) the habit was seen.
    public var occurrences: Int
    /// Of how many: the matching days the house was lived in over the period looked at, or the
    /// times the first step (the switching on) happened.
    public var outOf: Int
    /// The median local time of day (time-of-day habits).
    public var medianTime: TimeOfDay?
    /// The spread around the median: the median absolute deviation of the time of day, the gap
    /// or the duration.
    public var spread: Duration
    /// The median gap (sequences) or time switched on (durations).
    public var typical: Duration?
    public var firstSeen: Date
    public var lastSeen: Date

    public init(occurrences: Int, outOf: Int, medianTime: TimeOfDay? = nil, spread: Duration = .zero,
                typical: Duration? = nil, firstSeen: Date, lastSeen: Date) {
        self.occurrences = occurrences
        self.outOf = outOf
        self.medianTime = medianTime
        self.spread = spread
        self.typical = typical
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
    }

    /// "12 of the last 15".
    public var countText: String { "\(occurrences) of the last \(outOf)" }
}
