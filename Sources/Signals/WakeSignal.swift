import Synchronization

/// A wake-up flag for one waiting task: `signal()` wakes the current `wait()`, or the next one
/// if nobody waits yet, so no wake-up is lost; several signals before a wait wake it once. The
/// waiter looks at what changed itself (a wake-up carries no value). Cancelling the waiting task
/// ends the wait. A second concurrent `wait()` wakes the first.
public final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    public init() {}

    /// Wakes the waiting task, or the next `wait()`.
    public func signal() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { s in
            guard let waiter = s.waiter else {
                s.pending = true
                return nil
            }
            s.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns at the next `signal()` (at once if one came since the last wait), or when the
    /// waiting task is cancelled.
    public func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let (now, replaced): (Bool, CheckedContinuation<Void, Never>?) = state.withLock { s in
                    if s.pending || Task.isCancelled {
                        s.pending = false
                        return (true, nil)
                    }
                    defer { s.waiter = c }
                    return (false, s.waiter)
                }
                replaced?.resume()
                if now { c.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { s in
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume()
        }
    }

    /// Returns at the next `signal()` or when `clock` reaches `deadline` (nil: no deadline),
    /// whichever comes first, or when the waiting task is cancelled: the loop of a timer that
    /// new work may bring forward (the relay bank's timers, the openers' deadlines).
    public func wait<C: Clock>(until deadline: C.Instant?, on clock: C) async {
        await withTaskGroup(of: Void.self) { group in
            if let deadline {
                group.addTask { try? await clock.sleep(until: deadline, tolerance: nil) }
            }
            group.addTask { await self.wait() }
            await group.next()
            group.cancelAll()
        }
    }
}
