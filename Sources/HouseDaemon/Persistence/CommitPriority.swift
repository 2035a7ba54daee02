#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// The commit thread's scheduling class (Linux): `SCHED_IDLE` while it runs a commit that nobody
/// waits for, the normal class while somebody does (an answer that goes out after the commit,
/// the command bus waiting for the previous batch's commit, a read waiting for the commit in
/// progress, the last commit at shutdown).
///
/// Why: a commit of a thousand commands' history is several milliseconds of CPU. At the normal
/// class, the threads a command needs next (the network thread, the broker, whoever sent it)
/// queued behind it on its CPU at each of their wakes, for up to a `BackgroundPace` slice each:
/// that was most of benchmarks row 1's 99th percentile. A thread of the idle class gives way at
/// once to any other that wakes, and the kernel places a woken thread on a CPU that runs only idle
/// ones as if that CPU were idle. The commit still gets every CPU time nothing else wants; once
/// somebody waits for it, it gets its fair share again, so a commit never starves behind a busy
/// machine while an answer or the bus waits for it.
///
/// Going back from `SCHED_IDLE` takes CAP_SYS_NICE, or an RLIMIT_NICE that allows nice 0 (root
/// has both; the systemd unit sets `LimitNICE=20`). A process that may not go back never lowers
/// the thread (`available` is false): the commit thread stays in the normal class, with the
/// pace's yields as before.
///
/// Thread-safe: `begin` and `finished` come from the commit thread, `submitted` and `raise` from
/// any thread. The thread is only changed from elsewhere while a job is queued, so it is alive.
final class CommitPriority: Sendable {
    /// A scheduling class the thread can be in.
    enum Level: Sendable, Equatable {
        /// `SCHED_IDLE`: only CPU time that no other thread wants.
        case idle
        /// `SCHED_OTHER` at nice 0, as every other thread of the daemon.
        case normal
    }

    private struct State {
        /// The commit thread, once it ran a job.
        var thread: pthread_t?
        var level = Level.normal
        /// Jobs submitted and not finished.
        var queued = 0
        /// Somebody waits for a queued job: every job runs in the normal class until none is queued.
        var raised = false
    }

    private let state = Mutex(State())
    /// Whether the thread is ever lowered (see the type's doc).
    let available: Bool

    /// - Parameter available: whether to use the idle class at all; by default, whether this
    ///   process may leave it again (`mayLeaveIdle`).
    init(available: Bool = CommitPriority.mayLeaveIdle) {
        self.available = available
    }

    /// The class the commit thread is in now.
    var level: Level { state.withLock { $0.level } }

    /// A job was handed to the commit thread.
    func submitted() {
        state.withLock { $0.queued += 1 }
    }

    /// On the commit thread, as a job starts: the idle class unless `urgent` (somebody waits for
    /// this job) or somebody waits for a job queued now.
    func begin(urgent: Bool) {
        state.withLock { s in
            if s.thread == nil { s.thread = pthread_self() }
            let wanted: Level = urgent || s.raised || !available ? .normal : .idle
            if wanted != s.level, Self.apply(wanted, to: pthread_self()) { s.level = wanted }
        }
    }

    /// On the commit thread, as a job ends.
    func finished() {
        state.withLock { s in
            s.queued -= 1
            if s.queued == 0 { s.raised = false }
        }
    }

    /// Somebody waits for a queued job (the bus for its batch's commit, a read for the commit in
    /// progress): the thread goes back to the normal class now, and stays there until no job is
    /// queued. Nothing when none is queued.
    func raise() {
        state.withLock { s in
            guard s.queued > 0 else { return }
            s.raised = true
            guard s.level == .idle, let thread = s.thread else { return }
            if Self.apply(.normal, to: thread) { s.level = .normal }
        }
    }

    /// Whether this process may put a thread back into the normal class after `SCHED_IDLE`: tried
    /// once, on a thread of its own (a thread that could not come back would stay idle).
    static let mayLeaveIdle: Bool = {
        #if os(Linux)
        let result = Mutex(false)
        let done = DispatchSemaphore(value: 0)
        let probe = Thread {
            let me = pthread_self()
            let ok = apply(.idle, to: me) && apply(.normal, to: me)
            result.withLock { $0 = ok }
            done.signal()
        }
        probe.start()
        done.wait()
        return result.withLock { $0 }
        #else
        return false
        #endif
    }()

    /// Puts `thread` into `level`'s class; false when the kernel refuses.
    private static func apply(_ level: Level, to thread: pthread_t) -> Bool {
        #if os(Linux)
        // <sched.h>'s SCHED_OTHER and SCHED_IDLE (the latter is not imported into Swift).
        let policy: Int32 = level == .idle ? 5 : 0
        var parameters = sched_param()
        return pthread_setschedparam(thread, policy, &parameters) == 0
        #else
        return false
        #endif
    }
}
