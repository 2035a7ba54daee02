import Foundation

/// A dedicated thread for calls that block, so they never occupy the Swift concurrency pool:
/// libmosquitto's (name lookup, TCP/TLS connect setup, joining the network thread) and, in the
/// daemon, the state store's commits (`StateCommitter`).
package final class BlockingWorker: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []
    private var stopping = false

    package init(name: String) {
        let thread = Thread { [self] in
            // Set on the thread itself, Foundation gives the kernel the name too (top, perf, the
            // benchmarks' thread report); set before the start, the thread kept its creator's.
            Thread.current.name = name
            self.runLoop()
        }
        thread.start()
    }

    /// Runs `body` on the worker thread and returns its result.
    package func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (c: CheckedContinuation<T, Never>) in
            submit { c.resume(returning: body()) }
        }
    }

    /// Queues `body` without waiting for it.
    package func submit(_ body: @escaping () -> Void) {
        condition.lock()
        jobs.append(body)
        condition.signal()
        condition.unlock()
    }

    /// Lets the thread finish the queued jobs and exit.
    package func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func runLoop() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty && stopping {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}
