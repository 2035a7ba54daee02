import HouseGPIO
import Logging
import ServiceLifecycle

/// Runs the input bank's thread (buttons, contacts, motion sensors of this node) until graceful
/// shutdown: each debounced event goes on the bus, in turn with the commands; chatter is logged.
struct InputService: Service {
    let bank: InputBank
    let bus: CommandBus
    let logger: Logger

    func run() async throws {
        let (bus, logger) = (bus, logger)
        bank.start({ events in
            for event in events {
                if case .chatter = event { logger.info("input \(event)") } else { bus.note(.input(event)) }
            }
        }, onError: { error in
            logger.error("inputs stopped: \(error)")
        })
        try? await gracefulShutdown()
        bank.stop()
    }
}
