import HouseCore
import Logging
import ServiceLifecycle
import Signals

/// Publishes the energy used today, the house's and each metered device's, once a minute on the
/// injected clock (primary node): energy grows while something is on, without any command (a
/// heater left on for an hour). A figure that did not change is not sent again.
///
/// After a switch (`IntentGateway.energyMoved`) it publishes the house's figure at once, and
/// then at most once a second: what moved in that second goes out after it. A burst of commands
/// costs one figure a second, not one per command (computing it was about a quarter of a
/// command's bookkeeping).
///
/// It also writes the energy edges buffered since the last minute and records that the
/// controller runs (`lastActive`), then and when it stops: after a restart, what was on counts
/// up to that instant (and the routines catch up from it). And it puts the minute's sensor check
/// on the bus (values older than their `stale_after`).
struct EnergyService: Service {
    let gateway: IntentGateway
    let bus: CommandBus
    let clock: any WallClock
    let logger: Logger
    /// How often the figures are looked at.
    static let interval: Duration = .seconds(60)
    /// The shortest time between two figures published after switches.
    static let switchInterval: Duration = .seconds(1)

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                var minute = clock.now.advanced(by: Self.interval)
                while true {
                    await gateway.energyMoved.wait(until: minute, on: clock)
                    try Task.checkCancellation()
                    if clock.now >= minute {
                        minute = clock.now.advanced(by: Self.interval)
                        await gateway.publishEnergy(perDevice: true)
                        bus.note(.checkSensors)
                        stillRunning()
                    } else {
                        await gateway.publishEnergy()
                        try await clock.sleep(until: clock.now.advanced(by: Self.switchInterval), tolerance: nil)
                    }
                }
            }
        } catch is CancellationError {
            // Graceful shutdown.
        }
        stillRunning()
    }

    /// The buffered energy edges and `last_active`, to the store.
    private func stillRunning() {
        do {
            try gateway.store.flushEnergyEdges()
            try gateway.store.saveLastActive(clock.now.date)
        } catch {
            logger.error("\(error)")
        }
    }
}
