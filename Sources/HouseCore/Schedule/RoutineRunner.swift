import Foundation

/// Drives a `RoutineScheduler` from a `WallClock`: sleeps on the clock until the next run, then
/// emits what became due, in time order. (The end of a temporary mode is the engine's own timer:
/// a routine's run that comes after it finds it ended, since every command first carries out
/// what is due.)
///
/// Runs found more than a minute late on waking (the machine slept, or the clock jumped) follow
/// the routines' catch-up policy, as after downtime.
///
/// With a `ManualClock` (HouseTesting), tests advance the clock and await the emitted events;
/// no real time passes.
/// `run(emit:)` is meant to be called once at a time.
public final class RoutineRunner<C: WallClock, RNG: RandomNumberGenerator & Sendable>: @unchecked Sendable {
    public let clock: C
    /// The scheduler as configured; `run` works on its own copy.
    public let scheduler: RoutineScheduler<RNG>
    /// The last instant the controller was known to run (for catch-up); nil on a first start.
    public let lastActive: Date?
    /// The runs recorded before a restart (planned and done).
    public let records: [RoutineRunRecord]


    public init(clock: C, scheduler: RoutineScheduler<RNG>, lastActive: Date? = nil, records: [RoutineRunRecord] = []) {
        self.clock = clock
        self.scheduler = scheduler
        self.lastActive = lastActive
        self.records = records
    }

    /// Runs until cancelled (throws `CancellationError`).
    ///
    /// Emits `.started` first (catch-up runs and the reconciled desired state), then each
    /// catch-up run, then `.planned` with the runs to come (to record before waiting), then runs
    /// as the clock reaches them, with `.planned` again after runs. `emit` is
    /// awaited before the runner goes on, so a slow consumer delays, never drops.
    ///
    /// `lastActive` and `records` stand in for the runner's own for this run (a node that takes
    /// over the house catches up from when the previous coordinator was last heard, and counts the
    /// runs it claimed as done).
    public func run(lastActive: Date?? = nil, records: [RoutineRunRecord]? = nil,
                    emit: (RunnerEvent) async throws -> Void) async throws {
        var scheduler = self.scheduler
        let startInstant = clock.now.date
        let start = scheduler.start(at: startInstant, lastActive: lastActive ?? self.lastActive, records: records ?? self.records)
        try await emit(.started(start))
        for run in start.catchUp {
            try await emitRun(run, scheduler: scheduler, emit: emit)
        }
        try await emit(.planned(scheduler.pending))
        while true {
            try Task.checkCancellation()
            try await waitUntil(scheduler.nextDue)
            let due = scheduler.takeDue(at: clock.now.date)
            for run in due {
                try await emitRun(run, scheduler: scheduler, emit: emit)
            }
            if !due.isEmpty { try await emit(.planned(scheduler.pending)) }
        }
    }

    // MARK: - Helpers

    private func emitRun(_ run: ScheduledRun, scheduler: RoutineScheduler<RNG>,
                         emit: (RunnerEvent) async throws -> Void) async throws {
        guard let routine = scheduler.routine(id: run.routineID) else { return }
        try await emit(.run(run, routine.intent))
    }

    /// Returns when the clock reaches `deadline` (never, when nil: until cancelled).
    private func waitUntil(_ deadline: Date?) async throws {
        if let deadline {
            try await clock.sleep(until: WallInstant(deadline), tolerance: nil)
        } else {
            try await Task.sleep(for: .seconds(86_400 * 365))
        }
        try Task.checkCancellation()
    }
}
