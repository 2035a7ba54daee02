/// Runs `body` for at most `limit` on `clock`: its result, or nil when the time ran out first
/// (then `body` is cancelled and not waited for beyond its reaction to the cancellation). The
/// one way to bound a wait on something outside the process (a broker's acknowledgement at
/// shutdown, a claim's echo).
public func withTimeLimit<T: Sendable, C: Clock>(
    _ limit: C.Duration, on clock: C, _ body: @escaping @Sendable () async -> T
) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await body() }
        group.addTask {
            try? await clock.sleep(until: clock.now.advanced(by: limit), tolerance: nil)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// `withTimeLimit` on the continuous clock.
public func withTimeLimit<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async -> T) async -> T? {
    await withTimeLimit(limit, on: ContinuousClock(), body)
}
