#if os(Linux)
import Glibc
import Foundation
import Logging
import Synchronization
import Testing
@testable import HouseDaemon

/// The commit thread runs a commit nobody waits for in the idle scheduling class, and goes back
/// to the normal class as soon as somebody waits (`CommitPriority`).
@Suite struct CommitPriorityTests {
    static let normalPolicy = CommitPriority.Level.normal.policy
    static let idlePolicy = CommitPriority.Level.idle.policy

    /// A grouped store in a directory of its own, removed by `close`.
    final class Fixture: Sendable {
        let directory = NSTemporaryDirectory() + "housectl-priority-\(UUID().uuidString)"
        let store: StateStore
        let committer: StateCommitter

        init(priority: CommitPriority = CommitPriority()) throws {
            store = try StateStore(path: directory + "/state.sqlite", grouped: true)
            committer = StateCommitter(store: store, logger: Logger(label: "test"), priority: priority)
        }

        /// The policy the commit thread runs `commit(urgent:)`'s `then` in.
        func policyOfCommit(urgent: Bool) async -> Int32 {
            await withCheckedContinuation { (c: CheckedContinuation<Int32, Never>) in
                committer.commit(urgent: urgent) { c.resume(returning: sched_getscheduler(0)) }
            }
        }

        func close() throws {
            committer.stop()
            try store.close()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// The policy `thread` runs in now, as the kernel has it.
    static func policy(of thread: pthread_t) -> Int32 {
        var policy: Int32 = -1
        var parameters = sched_param()
        _ = pthread_getschedparam(thread, &policy, &parameters)
        return policy
    }

    /// Whether the kernel lets this process put a thread back into the normal class after the
    /// idle one: CAP_SYS_NICE in its effective set, or an RLIMIT_NICE that allows nice 0.
    static var kernelLetsUsLeaveIdle: Bool {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let effective = status.split(separator: "\n").first { $0.hasPrefix("CapEff:") }
            .flatMap { UInt64($0.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16) } ?? 0
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(13), &limit)  // RLIMIT_NICE (not imported into Swift)
        return effective & (1 << 23) != 0 || limit.rlim_cur >= 20
    }

    /// The probe finds what the kernel allows: the idle class is used exactly where the thread
    /// can come back from it.
    @Test func theProbeMatchesWhatTheKernelAllows() {
        #expect(CommitPriority.mayLeaveIdle == Self.kernelLetsUsLeaveIdle)
        #expect(CommitPriority().available == CommitPriority.mayLeaveIdle)
    }

    /// A commit nobody waits for runs idle, an urgent one (an answer waits for it) normal, and
    /// the next unwaited one idle again. Where the process may not come back from the idle
    /// class, every commit runs normal.
    @Test func anUnwaitedCommitRunsIdleAndAnUrgentOneNormal() async throws {
        let fixture = try Fixture()
        var seen: [Int32] = []
        for urgent in [false, true, false] { seen.append(await fixture.policyOfCommit(urgent: urgent)) }
        if fixture.committer.priority.available {
            #expect(seen == [Self.idlePolicy, Self.normalPolicy, Self.idlePolicy])
        } else {
            #expect(seen == [Self.normalPolicy, Self.normalPolicy, Self.normalPolicy])
        }
        try fixture.close()
    }

    /// `hurry` puts a commit that runs idle into the normal class at once, and every commit
    /// queued behind it runs normal too; once none is queued, an unwaited commit runs idle again.
    @Test func hurryRaisesTheRunningCommitAndTheQueuedOnes() async throws {
        let fixture = try Fixture()
        guard fixture.committer.priority.available else {
            #expect(await fixture.policyOfCommit(urgent: false) == Self.normalPolicy)
            try fixture.close()
            return
        }
        let started = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0)
        // Whatever fails below, the commit thread is let go and the files removed.
        defer {
            gate.signal()
            try? fixture.close()
        }
        let thread = Mutex<pthread_t?>(nil)
        try fixture.store.enqueue { _, _ in
            thread.withLock { $0 = pthread_self() }
            started.signal()
            gate.wait()
        }
        let first = OneShotBox(), second = OneShotBox()
        fixture.committer.commit(urgent: false) { first.set(sched_getscheduler(0)) }
        fixture.committer.commit(urgent: false) { second.set(sched_getscheduler(0)) }
        #expect(started.wait(timeout: .now() + 10) == .success, "the commit never ran its write")
        let commitThread = try #require(thread.withLock { $0 })
        #expect(Self.policy(of: commitThread) == Self.idlePolicy, "nobody waits yet")
        #expect(fixture.committer.priority.level == .idle)

        fixture.committer.hurry()
        #expect(Self.policy(of: commitThread) == Self.normalPolicy, "raised while its write still runs")
        gate.signal()
        #expect(first.wait() == Self.normalPolicy)
        #expect(second.wait() == Self.normalPolicy, "queued behind the hurried commit")
        #expect(await fixture.policyOfCommit(urgent: false) == Self.idlePolicy, "nobody waits any more")
    }

    /// What a priority asked of the kernel, and for which thread (whatever the process may do:
    /// these tests check the order of the changes, not the kernel).
    final class Recorder: Sendable {
        private let calls = Mutex<[(CommitPriority.Level, pthread_t)]>([])
        var levels: [CommitPriority.Level] { calls.withLock { $0.map(\.0) } }
        var priority: CommitPriority {
            CommitPriority(available: true) { [self] level, thread in
                calls.withLock { $0.append((level, thread)) }
                return true
            }
        }
    }

    /// An urgent commit (an answer waits for it) queued behind one that runs idle raises the
    /// thread when it is asked for, not when it starts: the one before it holds it up.
    @Test func anUrgentCommitRaisesTheIdleOneBeforeIt() async throws {
        let recorder = Recorder()
        let fixture = try Fixture(priority: recorder.priority)
        let started = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0)
        defer {
            gate.signal()
            try? fixture.close()
        }
        try fixture.store.enqueue { _, _ in
            started.signal()
            gate.wait()
        }
        let first = OneShotBox(), second = OneShotBox()
        fixture.committer.commit(urgent: false) { first.set(0) }
        #expect(started.wait(timeout: .now() + 10) == .success, "the commit never ran its write")
        #expect(recorder.levels == [.idle])
        fixture.committer.commit(urgent: true) { second.set(0) }
        #expect(recorder.levels == [.idle, .normal], "raised while the idle commit still runs")
        gate.signal()
        #expect(first.wait() == 0)
        #expect(second.wait() == 0)
        #expect(recorder.levels == [.idle, .normal], "the urgent one ran in the class it was raised to")
    }

    /// A hurry that comes while a commit's answers go out (its `then`) still raises it: the job
    /// counts as queued until they are out.
    @Test func aHurryWhileTheAnswersGoOutRaisesTheThread() async throws {
        let recorder = Recorder()
        let fixture = try Fixture(priority: recorder.priority)
        let inThen = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0), done = OneShotBox()
        defer {
            gate.signal()
            try? fixture.close()
        }
        fixture.committer.commit(urgent: false) {
            inThen.signal()
            gate.wait()
            done.set(0)
        }
        #expect(inThen.wait(timeout: .now() + 10) == .success)
        fixture.committer.hurry()
        #expect(recorder.levels == [.idle, .normal])
        gate.signal()
        #expect(done.wait() == 0)
        fixture.committer.hurry()
        #expect(recorder.levels == [.idle, .normal], "nothing queued: nothing to raise")
    }

    /// A commit that the idle class has not finished within its patience (here: one that cannot
    /// finish until it runs in the normal class, as on a machine that other work keeps busy) is
    /// hurried: the state recorder's writes reach the disk however busy the machine is.
    @Test func aCommitNotDoneWithinItsPatienceIsHurried() async throws {
        let fixture = try Fixture()
        let sawNormal = Mutex(false)
        try fixture.store.enqueue { _, _ in
            // The kernel tells nobody when a thread's class changes: the write looks, every
            // millisecond, for at most 10 s.
            let deadline = DispatchTime.now() + 10
            while sched_getscheduler(0) != Self.normalPolicy, DispatchTime.now() < deadline { usleep(1_000) }
            sawNormal.withLock { $0 = sched_getscheduler(0) == Self.normalPolicy }
        }
        await fixture.committer.commit(hurryingAfter: .milliseconds(20))
        #expect(sawNormal.withLock { $0 }, "the commit was never hurried")
        #expect(fixture.store.statistics.commits == 1)
        if fixture.committer.priority.available {
            #expect(await fixture.policyOfCommit(urgent: false) == Self.idlePolicy, "hurried for that commit only")
        }
        try fixture.close()
    }

    /// A flush that finds another in progress (a read while the commit thread writes) says so,
    /// before it waits: the committer hurries the commit thread then.
    @Test func aContendedFlushCallsItsHookBeforeItWaits() throws {
        let directory = NSTemporaryDirectory() + "housectl-priority-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try StateStore(path: directory + "/state.sqlite", grouped: true)
        let contended = DispatchSemaphore(value: 0)
        let calls = Mutex(0)
        store.onCommitContended {
            calls.withLock { $0 += 1 }
            contended.signal()
        }
        try store.flushPending()
        #expect(calls.withLock { $0 } == 0, "nothing in progress: no wait, no call")

        let started = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        try store.enqueue { _, _ in
            started.signal()
            gate.wait()
        }
        Thread {
            try? store.flushPending()
            done.signal()
        }.start()
        #expect(started.wait(timeout: .now() + 10) == .success)
        Thread {
            try? store.flushPending()
            done.signal()
        }.start()
        #expect(contended.wait(timeout: .now() + 10) == .success, "the second flush waited without a word")
        gate.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(calls.withLock { $0 } == 1)
        try store.close()
    }
}

/// A policy set once on the commit thread and waited for on the test's.
private final class OneShotBox: Sendable {
    private let value = Mutex<Int32?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    func set(_ policy: Int32) {
        value.withLock { $0 = policy }
        ready.signal()
    }

    /// The policy, or -1 when none came within 10 s.
    func wait() -> Int32 {
        guard ready.wait(timeout: .now() + 10) == .success else { return -1 }
        return value.withLock { $0 ?? -1 }
    }
}
#endif
