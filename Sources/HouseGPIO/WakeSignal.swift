import Foundation

/// A one-waiter wake-up flag: `signal()` wakes the current `wait()`, or the next one if nobody
/// waits yet (so no wake-up is lost). Cancelling the waiting task ends the wait.
final class WakeSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var pending = false
    private var waiter: CheckedContinuation<Void, Never>?

    func signal() {
        lock.lock()
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter.resume()
        } else {
            pending = true
            lock.unlock()
        }
    }

    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                lock.lock()
                if pending || Task.isCancelled {
                    pending = false
                    lock.unlock()
                    c.resume()
                    return
                }
                waiter = c
                lock.unlock()
            }
        } onCancel: {
            lock.lock()
            let w = waiter
            waiter = nil
            lock.unlock()
            w?.resume()
        }
    }
}
