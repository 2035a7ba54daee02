import Foundation

/// A program the tests run with its standard output and error read as they come (a pipe, read on
/// a thread of its own): everything so far (`output`), and waits for a piece of the output that
/// end when it is there or the output ends, not on a timer (`wait(for:within:)`, or
/// `appearance(of:within:)` from async code).
public final class WatchedProcess: @unchecked Sendable {
    public let process: SpawnedProcess
    /// Guards `bytes`, `ended` and `waiters`; broadcast at every change.
    private let condition = NSCondition()
    private var bytes: [UInt8] = []
    private var ended = false
    /// Async waits: for the output to pass a test, or (nil) for its end.
    private var waiters: [Int: (test: (@Sendable (String) -> Bool)?, resume: @Sendable (Bool) -> Void)] = [:]
    private var nextWaiter = 0

    /// Starts `executable` as `SpawnedProcess` does, its stdout and stderr into the pipe.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil) throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SpawnedProcess.SpawnFailed(executable: executable, errno: errno) }
        // The child has its own copy of the write end: the reader sees the end once the child is gone.
        defer { close(ends[1]) }
        do {
            process = try SpawnedProcess(executable, arguments, output: ends[1], environment: environment, directory: directory)
        } catch {
            close(ends[0])
            throw error
        }
        let reader = ends[0]
        Thread { [self] in read(from: reader) }.start()
    }

    /// What it has written so far.
    public var output: String {
        condition.lock()
        defer { condition.unlock() }
        return text
    }

    /// Blocks until `needle` is in the output: false when the output ended without it or
    /// `limit` passed first.
    public func wait(for needle: String, within limit: Duration = .seconds(20)) -> Bool {
        let deadline = Date().addingTimeInterval(Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18)
        condition.lock()
        defer { condition.unlock() }
        while !contains(needle) {
            if ended || !condition.wait(until: deadline) { return contains(needle) }
        }
        return true
    }

    /// `wait(for:within:)` for async callers: suspends instead of blocking a thread.
    public func appearance(of needle: String, within limit: Duration = .seconds(20)) async -> Bool {
        await waitAsync(for: { $0.contains(needle) }, within: limit)
    }

    /// The first whole line (ended by a newline, returned without it) that contains `needle`,
    /// once it has been written; nil when the output ended without one or `limit` passed first.
    public func line(containing needle: String, within limit: Duration = .seconds(20)) async -> String? {
        guard await waitAsync(for: { Self.line(containing: needle, in: $0) != nil }, within: limit) else { return nil }
        return Self.line(containing: needle, in: output)
    }

    private static func line(containing needle: String, in text: String) -> String? {
        guard let found = text.range(of: needle), let end = text[found.upperBound...].firstIndex(of: "\n") else { return nil }
        let start = text[..<found.lowerBound].lastIndex(of: "\n").map(text.index(after:)) ?? text.startIndex
        return String(text[start..<end])
    }

    /// Waits until the output has ended (the program, and whatever it started, closed it), so
    /// that `output` is all of it: false when `limit` passed first.
    public func end(within limit: Duration = .seconds(20)) async -> Bool {
        await waitAsync(for: nil, within: limit)
    }

    /// Bounded by `withTimeout`, which cancels the wait (its waiter is removed and answered).
    private func waitAsync(for test: (@Sendable (String) -> Bool)?, within limit: Duration) async -> Bool {
        let id = newWaiter()
        let found = try? await withTimeout(limit, "the output") {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
                    self.condition.lock()
                    let now: Bool? = self.satisfied(test) ? true : self.ended || Task.isCancelled ? false : nil
                    if now == nil { self.waiters[id] = (test, { c.resume(returning: $0) }) }
                    self.condition.unlock()
                    if let now { c.resume(returning: now) }
                }
            } onCancel: {
                self.condition.lock()
                let waiter = self.waiters.removeValue(forKey: id)
                self.condition.unlock()
                waiter?.resume(false)
            }
        }
        return found ?? false
    }

    private func newWaiter() -> Int {
        condition.lock()
        defer { condition.unlock() }
        nextWaiter += 1
        return nextWaiter
    }

    /// Under the lock: the output so far.
    private var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Under the lock.
    private func contains(_ needle: String) -> Bool { text.contains(needle) }

    /// Under the lock: the output passes `test`, or (nil) it has ended.
    private func satisfied(_ test: (@Sendable (String) -> Bool)?) -> Bool {
        test.map { $0(text) } ?? ended
    }

    /// The reader thread: appends what comes, wakes the waiters it satisfies, and all of them at the end.
    private func read(from descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = Glibc.read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            condition.lock()
            if count > 0 { bytes += buffer[..<count] } else { ended = true }
            var answers: [(@Sendable (Bool) -> Void, Bool)] = []
            for (id, waiter) in waiters {
                let found = satisfied(waiter.test)
                if found || ended {
                    waiters[id] = nil
                    answers.append((waiter.resume, found))
                }
            }
            condition.broadcast()
            condition.unlock()
            for (resume, found) in answers { resume(found) }
            if count <= 0 { break }
        }
        close(descriptor)
    }
}
