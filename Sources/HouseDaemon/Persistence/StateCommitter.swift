import HouseMQTT
import Signals
import Logging

/// The one thread that commits the state store's grouped writes (SQLite, WAL): the command bus
/// hands it each batch's answers, which go out once what the batch wrote is on disk, while the
/// bus goes on with the next commands; the state recorder's straggler commits run here too. A
/// commit (and a WAL checkpoint's sync within it) never blocks a thread of the concurrency pool,
/// so a relay's state goes out while the previous command's history is being written. A commit
/// is background work: one that nobody waits for runs in the idle scheduling class
/// (`CommitPriority`), and every commit gives its CPU up every 50 us of writes
/// (`BackgroundPace`), so that a command's next step queued on its CPU does not wait for the
/// whole commit.
final class StateCommitter: Sendable {
    private let store: StateStore
    private let worker = BlockingWorker(name: "housectl-commit")
    private let logger: Logger
    /// The commit thread's scheduling class.
    let priority: CommitPriority

    init(store: StateStore, logger: Logger, priority: CommitPriority = CommitPriority()) {
        self.store = store
        self.logger = logger
        self.priority = priority
        // A thread that waits for the commit in progress (a read's flush, a write) waits for this one.
        store.onCommitContended { [priority] in priority.raise() }
    }

    /// Commits everything queued so far, then calls `then` (on the commit thread). Commits and
    /// their `then`s run in the order they were asked for. `urgent`: somebody waits for it (an
    /// answer goes out in `then`); otherwise the commit runs in the idle class until somebody
    /// does (`wait(for:)`, `hurry`).
    func commit(urgent: Bool, then: @escaping @Sendable () -> Void) {
        priority.submit(urgent: urgent) { number in
            worker.submit { [store, logger, priority] in
                priority.begin(number)
                var pace = BackgroundPace(clock: ContinuousClock())
                do { try store.flushPending { pace.step() } } catch { logger.error("\(error)") }
                then()
                priority.finished()
            }
        }
    }

    /// Commits everything queued so far and returns once it is on disk (and every commit asked
    /// for before it is done).
    func commit(urgent: Bool) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            commit(urgent: urgent) { done.resume() }
        }
    }

    /// Commits everything queued so far in the idle class, and returns once it is on disk; one
    /// that the idle class has not finished within `patience` (a machine kept busy by other
    /// work) is hurried then: what the state recorder queues is on disk within about its
    /// interval and this, however busy the machine.
    func commit(hurryingAfter patience: Duration) async {
        let done = OneShot<Void>()
        commit(urgent: false) { done.fulfill(()) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: patience) }
            group.addTask { _ = await done.wait() }
            await group.next()
            group.cancelAll()
        }
        await wait(for: done)
    }

    /// Waits for a commit whose `then` fulfils `done`, hurrying it (and the ones before it)
    /// unless it is done already.
    func wait(for done: OneShot<Void>) async {
        guard !done.isFulfilled else { return }
        hurry()
        _ = await done.wait()
    }

    /// Somebody now waits for the commits asked for so far: they run in the normal class.
    func hurry() {
        priority.raise()
    }

    /// Ends the commit thread once the commits asked for are done.
    func stop() {
        // Its last job: from then on nothing changes the thread's class from elsewhere.
        worker.submit { [priority] in priority.ended() }
        worker.stop()
    }
}
