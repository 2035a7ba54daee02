import Foundation

/// What the routine runner reports.
public enum RunnerEvent: Sendable, Equatable {
    /// The runner started: catch-up runs to come and the reconciled desired state.
    case started(SchedulerStart)
    /// A routine is due: run its intent through the engine.
    case run(ScheduledRun, IntentSpec)
    /// The runs to come, each with its drawn delay: record them before waiting, so that a
    /// restart takes them back (`RoutineRunRecord`).
    case planned([ScheduledRun])
}
