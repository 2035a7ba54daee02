/// Whether the house suggests routines from its history, and how much evidence a habit needs
/// (`suggestions:` in house.yaml). See `HabitFinder` and `HabitSuggester`.
public struct SuggestionSettings: Sendable, Equatable {
    /// Whether habits are looked for and suggested at all (`enabled: false` turns them off).
    public var enabled: Bool
    /// The fewest occurrences (days, or times for sequences and durations) a habit is learnt from.
    public var minOccurrences: Int
    /// The fewest weeks the occurrences of a habit must span, from the first to the last.
    public var minWeeks: Int
    /// The suggestions accepted and dismissed (from housectl's file next to house.yaml, never
    /// from house.yaml itself).
    public var answers = SuggestionAnswers()

    /// The accepted ranges of `min_occurrences` and `min_weeks`.
    public static let occurrenceRange = 3...100
    public static let weekRange = 1...8

    public init(enabled: Bool = true, minOccurrences: Int = 7, minWeeks: Int = 2) {
        self.enabled = enabled
        self.minOccurrences = minOccurrences
        self.minWeeks = minWeeks
    }
}
