/// What the routine runner reports.
public enum RunnerEvent: Sendable, Equatable {
    /// The runner started: catch-up runs to come and the reconciled desired state.
    case started(SchedulerStart)
    /// A routine is due: run its intent through the house service.
    case run(ScheduledRun, IntentSpec)
    /// A mode set for a duration by a routine ended.
    case modeReverted(ModeChange)
}
