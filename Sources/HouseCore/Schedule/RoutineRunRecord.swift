import Foundation

/// A routine run as the daemon records it: planned (with its random delay already drawn) before
/// the runner waits for it, and marked done in the same commit as what the run did. After a
/// restart the scheduler takes the planned runs back instead of drawing again, catches up the
/// ones that fell due while it was down (per `catch_up`), and never runs a done one again.
public struct RoutineRunRecord: Sendable, Hashable {
    public var routineID: RoutineID
    /// The local day the run belongs to.
    public var day: LocalDate
    /// The planned instant before jitter: with the routine id, the run's identity.
    public var nominal: Date
    /// When it was to run (with its drawn delay).
    public var due: Date
    /// Whether it ran.
    public var done: Bool

    public init(routineID: RoutineID, day: LocalDate, nominal: Date, due: Date, done: Bool) {
        self.routineID = routineID
        self.day = day
        self.nominal = nominal
        self.due = due
        self.done = done
    }

    /// The record of a planned run, not done yet.
    public init(planned run: ScheduledRun) {
        self.init(routineID: run.routineID, day: run.day, nominal: run.nominal, due: run.due, done: false)
    }

    /// The run's identity: its routine and nominal instant (to the second).
    public var key: ScheduledRun.Key { ScheduledRun.Key(routineID: routineID, nominal: nominal) }
}
