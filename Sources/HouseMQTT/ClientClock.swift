import Signals

/// The injected clock, type-erased: offsets since the client was created (for message time to
/// live) and sleeping (for backoff and timeouts).
struct ClientClock: Sendable {
    let now: @Sendable () -> Duration
    let sleep: @Sendable (Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let start = clock.now
        now = { start.duration(to: clock.now) }
        sleep = { duration in try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil) }
    }

    enum Outcome<Value: Sendable>: Sendable {
        case value(Value)
        case timedOut
        case interrupted
    }

    /// Waits for `signal`, at most `timeout`, and stops early when `interrupt` fires or the task is
    /// cancelled.
    func wait<V: Sendable>(for signal: OneShot<V>, timeout: Duration?, interruptedBy interrupt: OneShot<Void>?) async -> Outcome<V> {
        await withTaskGroup(of: Outcome<V>.self) { group in
            group.addTask {
                if let value = await signal.wait() { return .value(value) }
                return .interrupted
            }
            if let interrupt {
                group.addTask {
                    _ = await interrupt.wait()
                    return .interrupted
                }
            }
            if let timeout {
                group.addTask {
                    do {
                        try await sleep(timeout)
                        return .timedOut
                    } catch {
                        return .interrupted
                    }
                }
            }
            let first = await group.next() ?? .interrupted
            group.cancelAll()
            return first
        }
    }
}
