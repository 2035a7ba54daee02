import HouseCore
import ServiceLifecycle

/// Watches the presses of this node's openers (a garage door): when a press's time to reach an
/// end runs out, it puts `checkOpeners` on the bus, which publishes the opener's state and, when
/// its end's contact stayed silent, an `obstructed` event. Sleeps on the injected clock until the
/// next deadline, or until a new press (`IntentGateway.openerWake`).
struct OpenerWatchService: Service {
    let gateway: IntentGateway
    let bus: CommandBus
    let clock: any WallClock

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let deadline = await gateway.service.nextOpenerDeadline
                let wake = gateway.openerWake
                await wake.wait(until: deadline, on: clock)
                if let deadline, clock.now >= deadline {
                    // The gateway signals the wake once it has looked (so the same deadline is
                    // not noted again in a loop).
                    bus.note(.checkOpeners)
                    await wake.wait()
                }
            }
        }
    }
}
