import Foundation
import Synchronization

/// A one-time event: `fire()` once, `wait()` any number of times, before or after. A waiting task
/// that is cancelled stops waiting.
final class ReadySignal: Sendable {
    private struct State {
        var fired = false
        var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    func fire() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            guard !s.fired else { return [] }
            s.fired = true
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for w in waiters { w.resume() }
    }

    func wait() async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if s.fired || Task.isCancelled { return true }
                    s.waiters[id] = c
                    return false
                }
                if resumeNow { c.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
