#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The manners of a long run of background work on a machine with few cores (a group commit:
/// a few hundred row writes, 1-4 ms of CPU on a 2-core machine): every `slice` of work it gives
/// its CPU up (`sched_yield`), so that a thread the scheduler queued behind it (the next
/// command's network thread, the broker) runs within a slice instead of after the work's whole
/// time slice.
///
/// Why: Linux places a woken thread on the CPU it last ran on (or its waker's) when the other is
/// busy at that instant, and does not preempt the running thread for it at once; the other CPU
/// goes idle a moment later, but does not pull the queued thread over. A commit then held the
/// command after it up for its whole run (benchmarks row 1's 99th percentile). A yield with
/// nothing queued returns at once; the work still gets its share of the CPU.
///
/// A scheduling courtesy, not time logic: it reads whatever clock it is given (the committer's
/// is the real monotonic one; a test's is manual).
struct BackgroundPace<C: Clock> where C.Duration == Duration {
    /// The most work done between two yields.
    static var slice: Duration { .microseconds(50) }

    private let clock: C
    private let yield: () -> Void
    private var since: C.Instant

    /// A pace that starts now on `clock` and gives the CPU up with `yield`.
    init(clock: C, yield: @escaping () -> Void = { _ = sched_yield() }) {
        self.clock = clock
        self.yield = yield
        since = clock.now
    }

    /// Called between two steps of the work: gives the CPU up when a slice has passed since the
    /// start or the last yield.
    mutating func step() {
        guard since.duration(to: clock.now) >= Self.slice else { return }
        yield()
        since = clock.now
    }
}
