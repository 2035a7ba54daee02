/// A routine: a shortcut phrase, the window in which it is relevant, an optional time at which it
/// runs by itself, and the intent it runs.
public struct Routine: Sendable, Equatable {
    public var id: RoutineID
    /// The shortcut phrase ("Good morning house").
    public var shortcut: String
    /// When the shortcut is relevant (suggested, allowed to catch up).
    public var relevant: TimeWindowSpec?
    /// When it runs by itself, if at all.
    public var runAt: TimeEdge?
    /// Random delay added to `runAt` (presence simulation), at most this long.
    public var jitter: Duration?
    public var catchUp: CatchUpPolicy
    public var daylightSaving: DaylightSavingPolicy
    public var intent: IntentSpec
    /// Whether the routine's intent is confirmed in advance (`confirmed: true`): a routine runs
    /// with nobody to answer, so one whose intent asks "are you sure?" (a `confirm: true` device
    /// or mode) must say so, or the configuration is refused.
    public var confirmed: Bool

    public init(
        id: RoutineID,
        shortcut: String,
        relevant: TimeWindowSpec? = nil,
        runAt: TimeEdge? = nil,
        jitter: Duration? = nil,
        catchUp: CatchUpPolicy = .none,
        daylightSaving: DaylightSavingPolicy = .runAfterGap,
        intent: IntentSpec,
        confirmed: Bool = false
    ) {
        self.id = id
        self.shortcut = shortcut
        self.relevant = relevant
        self.runAt = runAt
        self.jitter = jitter
        self.catchUp = catchUp
        self.daylightSaving = daylightSaving
        self.intent = intent
        self.confirmed = confirmed
    }
}

/// What to do about runs missed while the controller was down.
public enum CatchUpPolicy: String, Sendable, Codable, CaseIterable {
    /// Missed runs are missed.
    case none
    /// Run the latest missed routine once if its window is still open.
    case latest
}

/// What a routine scheduled in a skipped (spring-forward) local hour does.
/// In a repeated (fall-back) hour a routine always runs once.
public enum DaylightSavingPolicy: String, Sendable, Codable, CaseIterable {
    /// Run at the first valid instant after the gap.
    case runAfterGap = "run-after-gap"
    /// Skip that day's run.
    case skip
}
