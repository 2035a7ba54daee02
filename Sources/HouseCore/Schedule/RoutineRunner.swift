import Foundation
import Signals

/// Drives a `RoutineScheduler` from a `WallClock`: sleeps on the clock until the next run or the
/// end of a timed mode, then emits what became due, in time order.
///
/// The modes themselves live in `HouseService` (one `ModeTimeline` per room); whoever changes
/// them tells the runner when the next temporary mode ends (`modeExpiryChanged(_:)`), and the
/// runner emits `.modeExpired` when the clock gets there, so that the revert goes through the
/// same command path as everything else.
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

    private let lock = NSLock()
    private var modeExpiry: Date?
    private let wake = WakeSignal()

    public init(clock: C, scheduler: RoutineScheduler<RNG>, lastActive: Date? = nil, records: [RoutineRunRecord] = []) {
        self.clock = clock
        self.scheduler = scheduler
        self.lastActive = lastActive
        self.records = records
    }

    /// Sets when the next temporary mode of the house ends (nil: none), waking the runner so
    /// that it emits `.modeExpired` then.
    public func modeExpiryChanged(_ expiry: Date?) {
        lock.withLock { modeExpiry = expiry }
        wake.signal()
    }

    /// When the runner will next emit `.modeExpired`, as it was last told.
    public var nextModeExpiry: Date? { lock.withLock { modeExpiry } }

    /// Runs until cancelled (throws `CancellationError`).
    ///
    /// Emits `.started` first (catch-up runs and the reconciled desired state), then each
    /// catch-up run, then `.planned` with the runs to come (to record before waiting), then runs
    /// and mode ends as the clock reaches them, with `.planned` again after runs. `emit` is
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
            let expiry = lock.withLock { modeExpiry }
            let deadline = [scheduler.nextDue, expiry].compactMap { $0 }.min()
            try await waitUntil(deadline)
            let now = clock.now.date
            // Interleave runs and mode ends in time order.
            let due = scheduler.takeDue(at: now)
            for run in due {
                try await emitReverts(upTo: run.due, emit: emit)
                try await emitRun(run, scheduler: scheduler, emit: emit)
            }
            if !due.isEmpty { try await emit(.planned(scheduler.pending)) }
            try await emitReverts(upTo: now, emit: emit)
        }
    }

    // MARK: - Helpers

    private func emitRun(_ run: ScheduledRun, scheduler: RoutineScheduler<RNG>,
                         emit: (RunnerEvent) async throws -> Void) async throws {
        guard let routine = scheduler.routine(id: run.routineID) else { return }
        try await emit(.run(run, routine.intent))
    }

    /// Emits `.modeExpired` when the next temporary mode ends at or before `instant`. The expiry
    /// is consumed: the revert tells the runner the next one.
    private func emitReverts(upTo instant: Date, emit: (RunnerEvent) async throws -> Void) async throws {
        let expired: Date? = lock.withLock {
            guard let at = modeExpiry, at <= instant else { return nil }
            modeExpiry = nil
            return at
        }
        if let expired { try await emit(.modeExpired(at: expired)) }
    }

    /// Returns when the clock reaches `deadline` (never, when nil) or `modeExpiryChanged` was
    /// called (since the last wait), whichever comes first.
    private func waitUntil(_ deadline: Date?) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            if let deadline {
                let clock = self.clock
                group.addTask { try await clock.sleep(until: WallInstant(deadline), tolerance: nil) }
            }
            let wake = self.wake
            group.addTask { await wake.wait() }
            _ = try await group.next()
            group.cancelAll()
        }
        try Task.checkCancellation()
    }
}
