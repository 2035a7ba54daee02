import Foundation

/// Drives a `RoutineScheduler` from a `WallClock`: sleeps on the clock until the next run or the
/// end of a timed mode, then emits what became due, in time order.
///
/// It also keeps the house's `ModeTimeline`: modes set by routine runs are recorded by the runner
/// itself, modes set any other way (CLI, MQTT, rules) are reported with `modeWasSet(_:duration:)`,
/// and whenever a mode set for a duration ends, `.modeReverted` is emitted. One timeline, so a
/// revert never undoes a mode set later.
///
/// Runs found more than a minute late on waking (the machine slept, or the clock jumped) follow
/// the routines' catch-up policy, as after downtime.
///
/// With a `ManualClock` (HouseTesting), tests advance the clock and await the emitted events; no real time passes.
/// `run(emit:)` is meant to be called once at a time.
public final class RoutineRunner<C: WallClock, RNG: RandomNumberGenerator & Sendable>: @unchecked Sendable {
    public let clock: C
    /// The scheduler as configured; `run` works on its own copy.
    public let scheduler: RoutineScheduler<RNG>
    /// The last instant the controller was known to run (for catch-up); nil on a first start.
    public let lastActive: Date?

    private let lock = NSLock()
    private var modes = ModeTimeline()
    private var generation: UInt64 = 0
    private var wakeWaiter: CheckedContinuation<Void, Never>?

    public init(clock: C, scheduler: RoutineScheduler<RNG>, lastActive: Date? = nil) {
        self.clock = clock
        self.scheduler = scheduler
        self.lastActive = lastActive
    }

    /// The mode in effect as the runner knows it.
    public var currentMode: String? { lock.withLock { modes.current } }

    /// Records a mode set outside the routines (now, on the runner's clock), so that a duration
    /// reverts when it ends and an earlier timed mode does not revert over it. Returns the change.
    @discardableResult
    public func modeWasSet(_ mode: String, duration: Duration?) -> ModeChange? {
        let now = clock.now.date
        let (change, waiter): (ModeChange?, CheckedContinuation<Void, Never>?) = lock.withLock {
            let change = modes.set(mode, duration: duration, at: now)
            generation &+= 1
            let w = wakeWaiter
            wakeWaiter = nil
            return (change, w)
        }
        waiter?.resume()
        return change
    }

    /// Runs until cancelled (throws `CancellationError`).
    ///
    /// Emits `.started` first (catch-up runs and the reconciled desired state, whose mode seeds
    /// the mode timeline), then each catch-up run, then runs and mode reverts as the clock reaches
    /// them. `emit` is awaited before the runner goes on, so a slow consumer delays, never drops.
    public func run(emit: (RunnerEvent) async throws -> Void) async throws {
        var scheduler = self.scheduler
        let startInstant = clock.now.date
        let start = scheduler.start(at: startInstant, lastActive: lastActive)
        if let d = start.desiredState {
            lock.withLock {
                guard modes.current == nil else { return }
                if let until = d.revertsAt {
                    if let base = d.revertsTo { modes.set(base, duration: nil, at: startInstant) }
                    modes.set(d.mode, duration: .seconds(until.timeIntervalSince(startInstant)), at: startInstant)
                } else {
                    modes.set(d.mode, duration: nil, at: startInstant)
                }
            }
        }
        try await emit(.started(start))
        for run in start.catchUp {
            try await emitRun(run, scheduler: scheduler, emit: emit)
        }
        while true {
            try Task.checkCancellation()
            let (expiry, seen) = lock.withLock { (modes.nextExpiry, generation) }
            let deadline = [scheduler.nextDue, expiry].compactMap { $0 }.min()
            try await waitUntil(deadline, orWakeAfter: seen)
            let now = clock.now.date
            // Interleave runs and mode ends in time order.
            for run in scheduler.takeDue(at: now) {
                try await emitReverts(upTo: run.due, emit: emit)
                try await emitRun(run, scheduler: scheduler, emit: emit)
            }
            try await emitReverts(upTo: now, emit: emit)
        }
    }

    // MARK: - Helpers

    private func emitRun(_ run: ScheduledRun, scheduler: RoutineScheduler<RNG>,
                         emit: (RunnerEvent) async throws -> Void) async throws {
        guard let routine = scheduler.routine(id: run.routineID) else { return }
        try await emit(.run(run, routine.intent))
        if case .mode(let mode, let duration, let rooms) = routine.intent, rooms.isEmpty {
            lock.withLock { _ = modes.set(mode, duration: duration, at: run.due) }
        }
    }

    private func emitReverts(upTo instant: Date, emit: (RunnerEvent) async throws -> Void) async throws {
        let changes = lock.withLock { modes.expire(at: instant) }
        for change in changes { try await emit(.modeReverted(change)) }
    }

    /// Returns when the clock reaches `deadline` (never, when nil) or `modeWasSet` is called after
    /// generation `seen`, whichever comes first.
    private func waitUntil(_ deadline: Date?, orWakeAfter seen: UInt64) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            if let deadline {
                let clock = self.clock
                group.addTask { try await clock.sleep(until: WallInstant(deadline), tolerance: nil) }
            }
            group.addTask { await self.waitForWake(after: seen) }
            _ = try await group.next()
            group.cancelAll()
        }
        try Task.checkCancellation()
    }

    private func waitForWake(after seen: UInt64) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                lock.lock()
                if generation != seen || Task.isCancelled {
                    lock.unlock()
                    c.resume()
                    return
                }
                let previous = wakeWaiter
                wakeWaiter = c
                lock.unlock()
                previous?.resume()
            }
        } onCancel: {
            let waiter: CheckedContinuation<Void, Never>? = lock.withLock {
                let w = wakeWaiter
                wakeWaiter = nil
                return w
            }
            waiter?.resume()
        }
    }
}
