import HouseCore
import Logging
import ServiceLifecycle

/// Publishes the energy used today, the house's and each metered device's, once a minute on the
/// injected clock (primary node): energy grows while something is on, without any command (a
/// heater left on for an hour). A figure that did not change is not sent again.
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

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                while true {
                    try await clock.sleep(until: clock.now.advanced(by: Self.interval), tolerance: nil)
                    await gateway.publishEnergy(perDevice: true)
                    bus.note(.checkSensors)
                    stillRunning()
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
