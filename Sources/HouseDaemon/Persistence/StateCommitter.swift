import HouseMQTT
import Signals
import Logging

/// The one thread that commits the state store's grouped writes (SQLite, WAL): the command bus
/// hands it each batch's answers, which go out once what the batch wrote is on disk, while the
/// bus goes on with the next commands; the state recorder's commits run here too. A commit (and
/// a WAL checkpoint's sync within it) never blocks a thread of the concurrency pool.
final class StateCommitter: Sendable {
    private let store: StateStore
    private let worker = BlockingWorker(name: "housectl-commit")
    private let logger: Logger

    init(store: StateStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// Commits everything queued so far, then calls `then` (on the commit thread). Commits and
    /// their `then`s run in the order they were asked for.
    func commit(then: @escaping @Sendable () -> Void) {
        worker.submit { [store, logger] in
            do { try store.flushPending() } catch { logger.error("\(error)") }
            then()
        }
    }

    /// Commits everything queued so far and returns once it is on disk (and every commit asked
    /// for before it is done).
    func commit() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            commit { done.resume() }
        }
    }

    /// Ends the commit thread once the commits asked for are done.
    func stop() {
        worker.stop()
    }
}
