import HouseBroker
import Logging
import ServiceLifecycle

/// Keeps the in-process `HouseBroker` (started while building the controller, so its port is
/// known) until graceful shutdown, then stops it. Last to stop, so every other part can still
/// publish on the way down.
struct EmbeddedBrokerService: Service {
    let broker: HouseBroker
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        await broker.shutdown()
        logger.info("embedded broker stopped")
    }
}
