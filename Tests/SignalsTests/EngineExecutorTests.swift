import Foundation
import Signals
import Synchronization
import Testing

/// An actor on a lane that waits for a value handed to it from another thread, and says on which
/// thread it went on.
private actor Waiter {
    nonisolated let executor: EngineExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    let slot = Mutex<CheckedContinuation<Int, Never>?>(nil)
    let parked = OneShot<Void>()
    var order: [Int] = []

    init(executor: EngineExecutor) { self.executor = executor }

    /// Waits for a value, leaves the inline thread, then returns the value, the thread that ran
    /// until then and the thread that ran the rest.
    func nextThenLeave() async -> (value: Int, before: UInt, after: UInt) {
        let value = await withCheckedContinuation { (c: CheckedContinuation<Int, Never>) in
            slot.withLock { $0 = c }
            // Told from the lane's next job, which runs once this one has suspended.
            Task { await self.markParked() }
        }
        let before = UInt(pthread_self())
        await executor.leaveInlineThread()
        return (value, before, UInt(pthread_self()))
    }

    /// Waits for a value, then returns it and the thread that ran the rest.
    func next() async -> (value: Int, thread: UInt) {
        let value = await withCheckedContinuation { (c: CheckedContinuation<Int, Never>) in
            slot.withLock { $0 = c }
            // Told from the lane's next job, which runs once this one has suspended.
            Task { await self.markParked() }
        }
        order.append(value)
        return (value, UInt(pthread_self()))
    }

    nonisolated func hand(_ value: Int) {
        let c = slot.withLock { s -> CheckedContinuation<Int, Never>? in defer { s = nil }; return s }
        c?.resume(returning: value)
    }

    func record(_ value: Int) { order.append(value) }

    /// Starts `count` tasks, each recording its number: isolated to this actor, each is a job on
    /// the lane, queued in this order while this job still runs.
    func startRecording(_ count: Int) -> [Task<Void, Never>] {
        (0..<count).map { i in Task { self.record(i) } }
    }

    func markParked() { parked.fulfill(()) }
}

/// Runs `body` on a thread of its own (not one of Swift's) and returns that thread's id. With
/// `alive`, the thread stays until it is signalled: a thread started after one has ended can get
/// the same id, so a test that expects another thread than this one keeps it alive until it has
/// compared.
private func onOwnThread(alive: DispatchSemaphore? = nil, _ body: @escaping @Sendable () -> Void) async -> UInt {
    let done = OneShot<UInt>()
    let thread = Thread {
        body()
        done.fulfill(UInt(pthread_self()))
        alive?.wait()
    }
    thread.start()
    return await done.wait() ?? 0
}

/// Runs `body` inline on `lane` once the lane has finished what it runs now (the waiting task's
/// suspension, the test task's own steps): inline runs need an idle lane.
private func whenIdle(_ lane: EngineExecutor, _ body: () -> Void) {
    while !lane.isIdle { sched_yield() }
    lane.runningInline(body)
}

@Suite("EngineExecutor", .timeLimit(.minutes(1)))
struct EngineExecutorTests {
    @Test func aTaskWokenInsideRunningInlineGoesOnOnTheWakingThread() async {
        let lane = EngineExecutor()
        let waiter = Waiter(executor: lane)
        let (value, thread, waker) = await withTaskExecutorPreference(lane) {
            async let result = waiter.next()
            _ = await waiter.parked.wait()
            let waker = await onOwnThread { whenIdle(lane) { waiter.hand(7) } }
            let (value, thread) = await result
            return (value, thread, waker)
        }
        #expect(value == 7)
        #expect(thread == waker)
    }

    @Test func afterLeaveInlineThreadTheRestGoesOnOnAWorker() async {
        let lane = EngineExecutor()
        let waiter = Waiter(executor: lane)
        let alive = DispatchSemaphore(value: 0)
        defer { alive.signal() }
        let (value, before, after, waker) = await withTaskExecutorPreference(lane) {
            async let result = waiter.nextThenLeave()
            _ = await waiter.parked.wait()
            let waker = await onOwnThread(alive: alive) { whenIdle(lane) { waiter.hand(9) } }
            let (value, before, after) = await result
            return (value, before, after, waker)
        }
        #expect(value == 9)
        #expect(before == waker)
        #expect(after != waker)
    }

    @Test func aTaskWokenOutsideRunningInlineGoesOnOnAnotherThread() async {
        let lane = EngineExecutor()
        let waiter = Waiter(executor: lane)
        let alive = DispatchSemaphore(value: 0)
        defer { alive.signal() }
        async let result = waiter.next()
        _ = await waiter.parked.wait()
        let waker = await onOwnThread(alive: alive) { waiter.hand(8) }
        let (value, thread) = await result
        #expect(value == 8)
        #expect(thread != waker)
    }

    @Test func jobsFromManyThreadsRunOneAtATimeInTheOrderTheyCame() async {
        let lane = EngineExecutor()
        let waiter = Waiter(executor: lane)
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<200 {
                group.addTask { await waiter.record(i) }
            }
        }
        let order = await waiter.order
        #expect(order.count == 200)
        #expect(Set(order).count == 200)
    }

    /// A lane that stays busy through a burst drops the jobs it ran now and then (the list would
    /// otherwise keep every job of the burst): each queued job still runs once, in order.
    @Test func aLongBurstOnABusyLaneRunsEveryJobOnceInOrder() async {
        let lane = EngineExecutor()
        let waiter = Waiter(executor: lane)
        let tasks = await waiter.startRecording(5_000)
        for task in tasks { await task.value }
        let order = await waiter.order
        #expect(order == Array(0..<5_000))
    }
}
