import Foundation

/// A shortcut that is relevant at an instant, with why.
public struct RelevantShortcut: Sendable, Hashable, CustomStringConvertible {
    public var routineID: RoutineID
    /// The phrase ("Good morning house").
    public var shortcut: String
    /// Higher ranks first.
    public var score: Double
    /// The window occurrence containing the instant, when it is inside one.
    public var window: TimeWindow?
    /// Past uses near this time of day within the retention (recency-weighted count in `score`).
    public var habitUses: Int
    /// "relevant 06:00-09:00 on weekdays; now Tuesday 07:12".
    public var explanation: String

    public init(routineID: RoutineID, shortcut: String, score: Double, window: TimeWindow?, habitUses: Int,
                explanation: String) {
        self.routineID = routineID
        self.shortcut = shortcut
        self.score = score
        self.window = window
        self.habitUses = habitUses
        self.explanation = explanation
    }

    public var description: String { "\(shortcut): \(explanation)" }
}
