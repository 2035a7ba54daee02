import Synchronization

/// A value set once (first `fulfill` wins) that any number of tasks can await. Waiting honours
/// task cancellation by returning nil. `WakeSignal` is its repeating, valueless sibling.
public final class OneShot<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiters: [UInt64: CheckedContinuation<Value?, Never>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    public init() {}

    public var isFulfilled: Bool { state.withLock { $0.value != nil } }

    /// Sets the value and wakes every waiter; later calls are ignored.
    public func fulfill(_ value: Value) {
        let waiters: [CheckedContinuation<Value?, Never>] = state.withLock { s in
            guard s.value == nil else { return [] }
            s.value = value
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }

    /// The value once fulfilled, or nil if the waiting task is cancelled first.
    public func wait() async -> Value? {
        let id = state.withLock { s in s.nextID += 1; return s.nextID }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Value?, Never>) in
                let immediate: Value?? = state.withLock { s in
                    if let value = s.value { return .some(value) }
                    if Task.isCancelled { return .some(nil) }
                    s.waiters[id] = c
                    return .none
                }
                if let immediate { c.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: nil)
        }
    }
}
