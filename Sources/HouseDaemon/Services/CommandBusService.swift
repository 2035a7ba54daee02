import Logging
import ServiceLifecycle

/// The command bus's one consumer: takes each command in order and has the gateway carry it out
/// to the end before the next. Started before every source of commands and stopped after them,
/// it finishes what was queued before it returns.
struct CommandBusService: Service {
    let bus: CommandBus
    let gateway: IntentGateway
    let logger: Logger

    func run() async throws {
        await withGracefulShutdownHandler {
            while let job = await bus.next() {
                job.answer(await gateway.perform(job.command))
            }
        } onGracefulShutdown: {
            bus.finish()
        }
        if bus.waiting > 0 { logger.warning("command bus stopped with \(bus.waiting) commands waiting") }
    }
}
