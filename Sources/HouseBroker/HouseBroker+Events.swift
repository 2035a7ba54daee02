import NIOCore

extension HouseBroker {
    /// Waits until `condition`, checked on the broker's loop now and after every event, gives a
    /// value, or throws `HouseBrokerError.timedOut(what)` after `timeout`. No polling: how
    /// `shutdown()` waits for the connections to close, and what HouseBrokerTesting's waits use.
    package func waitForEvent<T: Sendable>(timeout: Duration, _ what: String,
                                           until condition: @escaping @Sendable (BrokerCore) -> T?) async throws -> T {
        let core = self.core
        let loop = self.loop
        let future: EventLoopFuture<T> = try await loop.submit {
            let state = core.value
            if let value = condition(state) { return loop.makeSucceededFuture(value) }
            let promise = loop.makePromise(of: T.self)
            state.nextWaiterID += 1
            let id = state.nextWaiterID
            let timeoutTask = loop.scheduleTask(in: TimeAmount(timeout)) {
                let state = core.value
                if let index = state.waiters.firstIndex(where: { $0.id == id }) {
                    state.waiters.remove(at: index)
                    promise.fail(HouseBrokerError.timedOut(what))
                }
            }
            state.waiters.append(.init(id: id, isDone: { core in
                guard let value = condition(core) else { return false }
                promise.succeed(value)
                return true
            }, timeout: timeoutTask))
            return promise.futureResult
        }.get()
        return try await future.get()
    }
}
