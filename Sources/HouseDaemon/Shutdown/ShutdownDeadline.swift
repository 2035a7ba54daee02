import Dispatch
import Foundation
import Logging
import Synchronization

/// The time a graceful shutdown may take, counted from its first moment (SIGTERM, SIGINT,
/// `shutdown()`, a service that ended): every step that waits on something outside the process
/// (the MQTT broker) takes its wait from what is left, so the whole shutdown ends within
/// `budget` whatever the broker does.
///
/// When `enforce(signals:emergency:)` was called (`housectl serve`), it also guards the process
/// itself: if the shutdown is still going at the end of the budget (less `exitMargin`), or a
/// second SIGTERM/SIGINT comes, it runs the emergency work (commit the state store, release the
/// relay lines per their shutdown policy) and exits with `forcedExitStatus`, waiting for nothing
/// else. The guard runs on its own dispatch queue, not on the Swift concurrency pool, so a
/// blocked pool cannot stop it.
public final class ShutdownDeadline: Sendable {
    /// The default budget: 5 s from the first signal to the exit.
    public static let defaultBudget: Duration = .seconds(5)
    /// The exit status when the guard ends the process (a shutdown step was stuck, or a second
    /// signal came); 0 is a graceful shutdown.
    public static let forcedExitStatus: Int32 = 70
    /// Kept free at the end of the budget for the emergency work and the exit itself.
    public static let exitMargin: Duration = .milliseconds(500)

    /// How long the whole shutdown may take.
    public let budget: Duration
    private let logger: Logger
    private let queue = DispatchQueue(label: "housectl.shutdown-deadline")
    private let state = Mutex(State())

    private struct State {
        var start: ContinuousClock.Instant?
        var signals = 0
        var emergency: (@Sendable () -> Void)?
        var sources: [any DispatchSourceSignal] = []
        var timer: (any DispatchSourceTimer)?
        var finished = false
    }

    /// A deadline of `budget`, not started.
    public init(budget: Duration = ShutdownDeadline.defaultBudget, logger: Logger) {
        self.budget = budget
        self.logger = logger
    }

    /// Starts the clock (the first call counts; later ones do nothing) and, when enforced, arms
    /// the guard's timer.
    public func begin() {
        let armed: Bool = state.withLock { s in
            guard s.start == nil else { return false }
            s.start = .now
            guard s.emergency != nil, !s.finished else { return false }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            let seconds = Self.seconds(budget - Self.exitMargin)
            timer.schedule(deadline: .now() + seconds)
            timer.setEventHandler { [self] in forceExit("the shutdown took longer than \(budget)") }
            timer.resume()
            s.timer = timer
            return true
        }
        if armed { logger.info("stopping: at most \(budget) until the process exits") }
    }

    /// Whether the shutdown has begun.
    public var hasBegun: Bool { state.withLock { $0.start != nil } }

    /// What is left of the budget for the graceful steps (the budget less `exitMargin`, less the
    /// time since `begin()`), at most `wanted`; never negative. Before `begin()`, the whole budget.
    public func remaining(atMost wanted: Duration? = nil) -> Duration {
        let start = state.withLock { $0.start }
        let spent = start.map { $0.duration(to: .now) } ?? .zero
        let left = max(.zero, budget - Self.exitMargin - spent)
        return wanted.map { min($0, left) } ?? left
    }

    /// Guards the process (see the type's description): `signals` arriving a second time, or
    /// the budget running out after `begin()`, run `emergency` and exit. Call before the service
    /// group traps the same signals; both see every signal.
    public func enforce(signals: [Int32], emergency: @escaping @Sendable () -> Void) {
        state.withLock { s in
            s.emergency = emergency
            s.sources = signals.map { signal in
                let source = DispatchSource.makeSignalSource(signal: signal, queue: queue)
                source.setEventHandler { [self] in signalled(signal, times: Int(source.data)) }
                source.resume()
                return source
            }
        }
    }

    /// On the guard's queue: the first signal starts the clock, a second one ends the process.
    /// The first is logged here, by the guard itself: Dispatch on Linux reports signals that
    /// arrive before this handler has run as one, so only after this line is a second signal
    /// sure to be counted as such.
    private func signalled(_ signal: Int32, times: Int) {
        let count = state.withLock { s in
            s.signals += times
            return s.signals
        }
        let name = Self.signalNames[signal] ?? "signal \(signal)"
        if count >= 2 {
            forceExit("\(name) came again while stopping")
        } else {
            begin()
            logger.info("\(name): stopping gracefully; \(name) again exits at once (status \(Self.forcedExitStatus))")
        }
    }

    private static let signalNames: [Int32: String] = [SIGTERM: "SIGTERM", SIGINT: "SIGINT", SIGHUP: "SIGHUP", SIGQUIT: "SIGQUIT"]

    /// The graceful shutdown is over: the guard stands down.
    public func finish() {
        let (timer, sources) = state.withLock { s in
            s.finished = true
            defer { s.timer = nil; s.sources = [] }
            return (s.timer, s.sources)
        }
        timer?.cancel()
        for source in sources { source.cancel() }
    }

    /// On the guard's queue: the emergency work, then the exit, unless the shutdown finished.
    private func forceExit(_ reason: String) {
        guard let emergency = state.withLock({ s in s.finished ? nil : s.emergency }) else { return }
        logger.critical("\(reason): committing the state, releasing the relay lines and exiting now (status \(Self.forcedExitStatus))")
        emergency()
        fflush(nil)  // every output stream: the log is complete
        _exit(Self.forcedExitStatus)
    }

    private static func seconds(_ d: Duration) -> Double {
        let c = d.components
        return max(0, Double(c.seconds) + Double(c.attoseconds) / 1e18)
    }
}
