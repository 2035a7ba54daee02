import Foundation
import Logging
import Synchronization

/// Every log line of a logger, kept in memory for a test to grep.
public final class LogCapture: Sendable {
    public init() {}

    private typealias Waiter = (id: UUID, needle: String, continuation: CheckedContinuation<String, any Error>)
    private let state = Mutex<(lines: [String], waiters: [Waiter])>(([], []))

    /// All lines so far.
    public var lines: [String] { state.withLock { $0.lines } }

    /// A logger at `trace` level writing here.
    public func logger(label: String = "housectl") -> Logger {
        var logger = Logger(label: label) { label in CapturingHandler(label: label, capture: self) }
        logger.logLevel = .trace
        return logger
    }

    /// Adds a line (what `CapturingHandler` calls) and wakes the waits it satisfies.
    public func append(_ line: String) {
        let ready: [Waiter] = state.withLock { s in
            s.lines.append(line)
            let ready = s.waiters.filter { line.localizedCaseInsensitiveContains($0.needle) }
            s.waiters.removeAll { line.localizedCaseInsensitiveContains($0.needle) }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: line) }
    }

    /// Returns the first line containing `needle` (case-insensitive), waiting for it if needed.
    /// Bound it with `withTimeout`: cancelled, the wait ends with `CancellationError`.
    public func line(containing needle: String) async throws -> String {
        let id = UUID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { c in
                let found: Result<String, CancellationError>? = state.withLock { s in
                    if let l = s.lines.first(where: { $0.localizedCaseInsensitiveContains(needle) }) { return .success(l) }
                    // Checked under the lock `onCancel` takes: a cancellation before this is seen
                    // here, one after it finds the waiter.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    s.waiters.append((id, needle, c))
                    return nil
                }
                if let found { c.resume(with: found) }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { s in
                guard let index = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}
