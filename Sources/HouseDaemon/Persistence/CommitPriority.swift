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
/// Jobs are numbered as they are submitted; a job runs in the normal class when it is urgent or
/// somebody waits for it or a later one (`raise`): it is raised through that number. Raising
/// also moves the thread at once, whatever job it runs or waits for.
///
/// Thread-safe: `begin` and `finished` come from the commit thread, `submit` and `raise` from any
/// thread. The thread is changed from elsewhere only while a job is queued and before `ended`,
/// so it is alive.
final class CommitPriority: Sendable {
    /// A scheduling class the thread can be in.
    enum Level: Sendable, Equatable {
        /// `SCHED_IDLE`: only CPU time that no other thread wants.
        case idle
        /// `SCHED_OTHER` at nice 0, as every other thread of the daemon.
        case normal

        /// The policy's number in <sched.h> (SCHED_IDLE is not imported into Swift).
        var policy: Int32 { self == .idle ? 5 : 0 }
    }

    /// Puts a thread into a class; false when the kernel refuses.
    typealias Apply = @Sendable (Level, pthread_t) -> Bool

    private struct State {
        /// The commit thread, once it ran a job (nil again once it ended).
        var thread: pthread_t?
        /// The thread ends (`ended`): it is never changed again.
        var ending = false
        var level = Level.normal
        /// The number of the last job submitted.
        var submitted: UInt64 = 0
        /// Jobs submitted and not finished.
        var queued = 0
        /// Jobs numbered up to this run in the normal class.
        var raisedThrough: UInt64 = 0
    }

    private let state = Mutex(State())
    private let apply: Apply
    /// Whether the thread is ever lowered (see the type's doc).
    let available: Bool

    /// - Parameters:
    ///   - available: whether to use the idle class at all; by default, whether this process may
    ///     leave it again (`mayLeaveIdle`).
    ///   - apply: how a thread changes class (a test's records instead).
    init(available: Bool = CommitPriority.mayLeaveIdle, apply: @escaping Apply = CommitPriority.apply) {
        self.available = available
        self.apply = apply
    }

    /// The class the commit thread is in now.
    var level: Level { state.withLock { $0.level } }

    /// Numbers a job and calls `enqueue` with that number, under the lock (so that the numbers
    /// follow the thread's queue); an `urgent` one (somebody waits for it) raises the thread now.
    func submit(urgent: Bool, _ enqueue: (UInt64) -> Void) {
        state.withLock { s in
            s.submitted += 1
            s.queued += 1
            enqueue(s.submitted)
            if urgent { raise(through: s.submitted, &s) }
        }
    }

    /// On the commit thread, as job `number` starts: the idle class unless it was raised.
    func begin(_ number: UInt64) {
        state.withLock { s in
            if s.thread == nil, !s.ending { s.thread = pthread_self() }
            let wanted: Level = number <= s.raisedThrough || !available ? .normal : .idle
            if wanted != s.level, apply(wanted, pthread_self()) { s.level = wanted }
        }
    }

    /// On the commit thread, as a job ends (after everything it does, its answers too).
    func finished() {
        state.withLock { $0.queued -= 1 }
    }

    /// On the commit thread, as its last job: it is never changed from elsewhere again.
    func ended() {
        state.withLock { s in
            s.ending = true
            s.thread = nil
        }
    }

    /// Somebody waits for the jobs submitted so far (the bus for its batch's commit, a read for
    /// the commit in progress): they run in the normal class, the one running now too.
    func raise() {
        state.withLock { s in raise(through: s.submitted, &s) }
    }

    private func raise(through number: UInt64, _ s: inout State) {
        s.raisedThrough = max(s.raisedThrough, number)
        guard s.queued > 0, s.level == .idle, let thread = s.thread else { return }
        if apply(.normal, thread) { s.level = .normal }
    }

    /// Whether this process may put a thread back into the normal class after `SCHED_IDLE`: tried
    /// once, on a thread of its own (a thread that could not come back would stay idle).
    static let mayLeaveIdle: Bool = {
        #if os(Linux)
        let result = Mutex(false)
        let done = DispatchSemaphore(value: 0)
        let probe = Thread {
            let me = pthread_self()
            let ok = CommitPriority.apply(.idle, me) && CommitPriority.apply(.normal, me)
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
    static let apply: Apply = { level, thread in
        #if os(Linux)
        var parameters = sched_param()
        return pthread_setschedparam(thread, level.policy, &parameters) == 0
        #else
        return false
        #endif
    }
}
