import Logging
import ServiceLifecycle

/// Sends `EventOutlet`'s probes: while nobody listens on `<base>/events`, the oldest kept event
/// at most every `interval` (with `EventOutlet.probeAt` kept, `EventOutlet.publish` sends one
/// itself). Started right after the MQTT connection, so it stops right before it, once every
/// other part has stopped: then whatever is kept goes out.
struct EventOutletService: Service {
    let outlet: EventOutlet
    let logger: Logger
    /// How late a new subscriber's first events may be (and how far back it may get some).
    static let interval: Duration = .milliseconds(100)

    func run() async throws {
        // Real time, not the house's clock: this paces MQTT packets, it is no time logic.
        let clock = ContinuousClock()
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let at = outlet.nextProbe(interval: Self.interval)
                await outlet.probeDue.wait(until: at, on: clock)
                if let at, clock.now >= at { outlet.probe() }
            }
        }
        outlet.flush()
        let counts = outlet.counts
        if counts.unheard > 0 {
            logger.info("events: \(counts.sent) sent, \(counts.unheard) let go while nobody subscribed (\(counts.probes) probes)")
        }
    }
}
