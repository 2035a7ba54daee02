import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one serial executor of the engine: the command bus's consumer, the gateway, the house
/// service and the relay bank all run on it, so a call from one to another never waits for a
/// thread, and only one of them runs at a time (the actors keep their isolation; they share one
/// lane). It is also the consumer task's executor preference (`withTaskExecutorPreference`), so
/// that what the consumer awaits outside the actors (the bus, a commit) wakes it on the lane.
///
/// Jobs run one at a time, in order, on whichever thread got there first:
/// - inside `runningInline` (the MQTT network thread handing the bus a command), a job that finds
///   the lane idle runs right there, on that thread, and so does what it wakes on the lane, until
///   the lane is idle again or the work calls `leaveInlineThread()`: a command offered while the
///   engine is idle switches its relay without waking another thread, and the state it publishes
///   leaves from that thread at once, as an echo client's would.
/// - otherwise the lane's jobs run on a thread of Swift's concurrency pool, as a default actor's would.
public final class EngineExecutor: SerialExecutor, TaskExecutor {
    private struct State {
        var jobs: [UnownedJob] = []
        var head = 0
        /// Whether a thread is running the lane's jobs now (or about to).
        var running = false
        /// Set by `leaveInlineThread()`: the thread running the lane inline gives the rest to a worker.
        var leaveInline = false

        mutating func pop() -> UnownedJob? {
            guard head < jobs.count else {
                jobs.removeAll(keepingCapacity: jobs.capacity <= 64)
                head = 0
                return nil
            }
            defer {
                head += 1
                // A lane that stays busy through a whole burst never runs dry: the jobs already
                // run are dropped now and then, so that the list is as long as what waits, not
                // as everything the burst ran (a flood of 10,000 commands grew it to 32,768).
                if head >= Self.compactAfter && head * 2 >= jobs.count {
                    jobs.removeFirst(head)
                    head = 0
                }
            }
            return jobs[head]
        }

        /// The jobs run before the list is compacted (at most every other job run, so it costs
        /// at most one move of each job).
        static let compactAfter = 256
    }

    /// The most jobs one `runningInline` call runs on the caller's thread before a worker takes
    /// over (a command is a few dozen; this bounds how long the network thread reads nothing).
    static let inlineLimit = 1024

    private let state = Mutex(State())

    public init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let start = state.withLock { s -> Bool in
            s.jobs.append(job)
            if s.running { return false }
            s.running = true
            return true
        }
        guard start else { return }
        if InlineScope.current == address {
            drain(inline: true)
        } else {
            handOff()
        }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Runs `body` with this lane allowed to run its jobs on the calling thread: a job enqueued
    /// while the lane is idle (a command task woken by `body`) runs before `body` returns. Call
    /// it only where no lock is held that the lane's jobs could take (the MQTT thread's message
    /// callback, around handing a command to the bus).
    public func runningInline<T>(_ body: () throws -> T) rethrows -> T {
        let outer = InlineScope.current
        InlineScope.current = address
        defer { InlineScope.current = outer }
        return try body()
    }

    /// Called on the lane: when it runs inline on another subsystem's thread (see
    /// `runningInline`), the rest of the caller's work goes on on a worker thread, and that
    /// thread goes back to its own work (the MQTT thread to writing the state just published).
    /// Elsewhere it only lets the lane's other jobs run first.
    public func leaveInlineThread() async {
        state.withLock { $0.leaveInline = true }
        await Task.yield()
    }

    /// Whether no thread runs the lane's jobs now (what `runningInline` needs to run one there).
    public var isIdle: Bool { state.withLock { !$0.running } }

    private var address: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Runs the lane's jobs on this thread until none is left; inline, until `inlineLimit` ran or
    /// a job asked to leave the thread, then a worker takes over. The caller holds `running`.
    private func drain(inline: Bool = false) {
        enum Step { case run(UnownedJob), idle, handOff }
        var ran = 0
        while true {
            let step = state.withLock { s -> Step in
                if inline && (ran == Self.inlineLimit || s.leaveInline) {
                    s.leaveInline = false
                    return .handOff
                }
                s.leaveInline = false
                if let job = s.pop() { return .run(job) }
                s.running = false
                return .idle
            }
            switch step {
            case .idle:
                return
            case .handOff:
                handOff()
                return
            case .run(let job):
                // A job enqueued by this job (on this lane) is queued and run after it, on this
                // thread, not inside it.
                let outer = InlineScope.current
                InlineScope.current = nil
                job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
                InlineScope.current = outer
                ran += 1
            }
        }
    }

    /// A thread of Swift's own pool runs the lane's jobs (the caller holds `running`), as it
    /// would a default actor's: no thread pool of another kind (Dispatch's would add threads,
    /// each with its stack and malloc arena).
    private func handOff() {
        Task.detached { self.drain() }
    }
}

/// Which lane may run jobs on the current thread (`EngineExecutor.runningInline`): a thread-local
/// value, so that a job enqueued from any other thread is never run inline by mistake.
private enum InlineScope {
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The lane (its address) allowed to run inline on this thread, if any.
    static var current: UnsafeMutableRawPointer? {
        get { pthread_getspecific(key) }
        set { pthread_setspecific(key, newValue) }
    }
}
