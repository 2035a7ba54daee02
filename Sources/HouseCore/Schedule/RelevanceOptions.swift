/// How relevance ranks shortcuts.
public struct RelevanceOptions: Sendable, Hashable {
    /// Uses older than this are forgotten.
    public var retention: Duration
    /// A past use counts as "near this time" when its local time of day is this close to now's.
    public var habitRadius: Duration
    /// The weight of habit against being inside the window (1 = a strong habit counts as much as
    /// being in the window).
    public var habitWeight: Double
    /// Whether a shortcut outside its window (or without one) is listed when habit alone makes it
    /// relevant.
    public var includeHabitOnly: Bool

    public init(retention: Duration = .seconds(28 * 86400), habitRadius: Duration = .seconds(3600),
                habitWeight: Double = 1, includeHabitOnly: Bool = true) {
        self.retention = retention
        self.habitRadius = habitRadius
        self.habitWeight = habitWeight
        self.includeHabitOnly = includeHabitOnly
    }
}
