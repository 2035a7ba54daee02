/// Thrown by `withTimeout` when the operation did not finish in time.
public struct TimeoutError: Error, CustomStringConvertible {
    /// What was being waited for.
    public let what: String
    /// The bound that was exceeded.
    public let after: Duration
    public init(what: String, after: Duration) {
        self.what = what
        self.after = after
    }
    public var description: String { "timed out after \(after) waiting for \(what)" }
}

/// Runs `operation` and fails with `TimeoutError` if it takes longer than `timeout`.
///
/// For tests that wait on an event: the bound only guards against hangs, so keep it generous
/// (machines running the tests may be busy). The operation must honour cancellation.
@discardableResult
public func withTimeout<Result: Sendable>(
    _ timeout: Duration = .seconds(20),
    _ what: String = "the operation",
    _ operation: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    try await withThrowingTaskGroup(of: Result.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw TimeoutError(what: what, after: timeout)
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw TimeoutError(what: what, after: timeout) }
        return first
    }
}
