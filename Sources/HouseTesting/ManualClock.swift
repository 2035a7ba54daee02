import Foundation
import HouseCore

/// A wall clock that only moves when told to, for tests: no test depends on the real hour.
///
/// Sleepers resume, in deadline order, when `advance(by:)`/`advance(to:)` passes their deadline.
public final class ManualClock: WallClock, @unchecked Sendable {
    private struct Sleeper {
        let id: UInt64
        let deadline: WallInstant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var current: WallInstant
    private var sleepers: [Sleeper] = []
    private var nextID: UInt64 = 0
    private var sleepWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// A clock reading `start`.
    public init(start: Date) { self.current = WallInstant(start) }
    /// A clock reading `now`.
    public init(now: WallInstant) { self.current = now }

    public var now: WallInstant { lock.withLock { current } }
    public var minimumResolution: Duration { .zero }

    /// Number of tasks currently sleeping on this clock.
    public var sleeperCount: Int { lock.withLock { sleepers.count } }

    public func sleep(until deadline: WallInstant, tolerance: Duration? = nil) async throws {
        let id: UInt64 = lock.withLock { nextID += 1; return nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                lock.lock()
                if deadline <= current {
                    lock.unlock()
                    c.resume()
                    return
                }
                if Task.isCancelled {
                    lock.unlock()
                    c.resume(throwing: CancellationError())
                    return
                }
                sleepers.append(Sleeper(id: id, deadline: deadline, continuation: c))
                let ready = takeSatisfiedWaitersLocked()
                lock.unlock()
                ready.forEach { $0.resume() }
            }
        } onCancel: {
            lock.lock()
            let index = sleepers.firstIndex { $0.id == id }
            let sleeper = index.map { sleepers.remove(at: $0) }
            lock.unlock()
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward and wakes every sleeper whose deadline has passed, earliest first.
    public func advance(by duration: Duration) {
        advance(to: now.advanced(by: duration))
    }

    /// Moves the clock to `instant` (never backwards through this call; see `jump(to:)`).
    public func advance(to instant: WallInstant) {
        lock.lock()
        if instant > current { current = instant }
        let due = sleepers.filter { $0.deadline <= current }.sorted { $0.deadline < $1.deadline }
        sleepers.removeAll { $0.deadline <= current }
        lock.unlock()
        for s in due { s.continuation.resume() }
    }

    /// Sets the clock to any instant, also backwards (an NTP correction), waking due sleepers.
    public func jump(to instant: WallInstant) {
        lock.lock()
        current = instant
        let due = sleepers.filter { $0.deadline <= current }
        sleepers.removeAll { $0.deadline <= current }
        lock.unlock()
        for s in due { s.continuation.resume() }
    }

    /// Waits until at least `count` tasks sleep on this clock (an event, not a timed wait).
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            lock.lock()
            if sleepers.count >= count {
                lock.unlock()
                c.resume()
                return
            }
            sleepWaiters.append((count, c))
            lock.unlock()
        }
    }

    private func takeSatisfiedWaitersLocked() -> [CheckedContinuation<Void, Never>] {
        var ready: [CheckedContinuation<Void, Never>] = []
        sleepWaiters.removeAll { waiter in
            if sleepers.count >= waiter.count {
                ready.append(waiter.continuation)
                return true
            }
            return false
        }
        return ready
    }
}
