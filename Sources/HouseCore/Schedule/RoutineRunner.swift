import Foundation

/// Drives a `RoutineScheduler` from a `WallClock`: sleeps on the clock until the next run or the
/// end of a timed mode, then emits what became due, in time order.
///
/// Runs found more than a minute late on waking (the machine slept, or the clock jumped) follow
/// the routines' catch-up policy, as after downtime.
///
/// Modes set by routine runs (`intent: {mode: ..., duration: ...}`) are tracked in a
/// `ModeTimeline` and their reverts are emitted when the duration ends. With a `ManualClock`,
/// tests advance the clock and await the emitted events; no real time passes.
public struct RoutineRunner<C: WallClock, RNG: RandomNumberGenerator & Sendable>: Sendable {
    public let clock: C
    public var scheduler: RoutineScheduler<RNG>
    /// The last instant the controller was known to run (for catch-up); nil on a first start.
    public var lastActive: Date?

    public init(clock: C, scheduler: RoutineScheduler<RNG>, lastActive: Date? = nil) {
        self.clock = clock
        self.scheduler = scheduler
        self.lastActive = lastActive
    }

    /// Runs until cancelled (throws `CancellationError`) or until nothing can ever become due.
    ///
    /// Emits `.started` first (catch-up runs and the reconciled desired state, whose mode seeds
    /// the mode timeline), then each catch-up run, then runs and mode reverts as the clock reaches
    /// them. `emit` is awaited before the runner goes on, so a slow consumer delays, never drops.
    public func run(emit: (RunnerEvent) async throws -> Void) async throws {
        var scheduler = self.scheduler
        let startInstant = clock.now.date
        let start = scheduler.start(at: startInstant, lastActive: lastActive)
        var modes = ModeTimeline(base: start.desiredState?.revertsAt == nil ? start.desiredState?.mode
                                                                              : start.desiredState?.revertsTo)
        if let d = start.desiredState, let until = d.revertsAt {
            modes.set(d.mode, duration: .seconds(until.timeIntervalSince(startInstant)), at: startInstant)
        }
        try await emit(.started(start))
        for run in start.catchUp {
            try await emitRun(run, scheduler: scheduler, modes: &modes, emit: emit)
        }
        while true {
            try Task.checkCancellation()
            let deadlines = [scheduler.nextDue, modes.nextExpiry].compactMap { $0 }
            guard let deadline = deadlines.min() else { return }
            try await clock.sleep(until: WallInstant(deadline), tolerance: nil)
            let now = clock.now.date
            // Interleave runs and mode ends in time order.
            for run in scheduler.takeDue(at: now) {
                for change in modes.expire(at: run.due) { try await emit(.modeReverted(change)) }
                try await emitRun(run, scheduler: scheduler, modes: &modes, emit: emit)
            }
            for change in modes.expire(at: now) { try await emit(.modeReverted(change)) }
        }
    }

    private func emitRun(_ run: ScheduledRun, scheduler: RoutineScheduler<RNG>, modes: inout ModeTimeline,
                         emit: (RunnerEvent) async throws -> Void) async throws {
        guard let routine = scheduler.routine(id: run.routineID) else { return }
        try await emit(.run(run, routine.intent))
        if case .mode(let mode, let duration, _) = routine.intent {
            modes.set(mode, duration: duration, at: run.due)
        }
    }
}
