import HouseCore
import HouseGPIO
import Logging
import ServiceLifecycle

/// Runs the relay bank's timers (pulse ends, max-on watchdog, interlock dead times, coalesced
/// switches) until graceful shutdown, then applies each relay's shutdown policy and releases the
/// lines.
struct RelayService<C: Clock>: Service where C.Duration == Duration {
    let bank: RelayBank<C>
    let logger: Logger

    func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await bank.run() }
            try? await gracefulShutdown()
            let outcomes = await bank.shutdown()
            for o in outcomes { logger.info("shutdown: \(o)") }
            await group.waitForAll()
        }
    }
}

/// Follows what the relays do (on command, at the end of a pulse, by the watchdog, for an
/// interlock, at shutdown): saves each state for `power_on: restore`, tells the house service,
/// publishes the retained state and fires device-state rules. Ends when the bank shuts down.
struct RelayEventsService<C: Clock>: Service where C.Duration == Duration {
    let bank: RelayBank<C>
    let gateway: IntentGateway
    let bus: CommandBus
    let store: StateStore
    let clock: any WallClock
    let logger: Logger

    func run() async throws {
        let configuration = gateway.configuration
        for await event in bank.events {
            switch event {
            case .switched(let device, let state, let cause):
                do { try store.saveRelayState(device: device, state: state, at: clock.now.date) } catch { logger.error("\(error)") }
                // A command's edge is already known to the service (each command path notes the
                // state it switched to). An event trails newer commands (a quick TOGGLE after
                // TOGGLE), so noting it again could undo a newer one. What the bank did on its own
                // (pulse end, watchdog, interlock, shutdown) is noted, if it is still the bank's state.
                let stillSo = cause != .command ? await bank.state(of: device) == state : false
                if let d = configuration.device(id: device) {
                    await gateway.publish(gateway.layout.deviceState(room: d.room, device: device), state.rawValue, retain: true)
                }
                if cause != .command { logger.info("\(event)") }
                // A command's energy figure comes with its donation; the bank's own switches say it here.
                if gateway.isPrimary && cause != .command { await gateway.publishEnergy() }
                bus.note(.stateChanged(device: device, state: state, note: stillSo, rules: .always))
            case .watchdog:
                logger.warning("\(event)")
                await gateway.publish(gateway.layout.events, IntentGateway.json(["event": "watchdog", "text": event.description]), retain: false)
            case .cancelled(let device, _, _):
                // The service expected the cancelled switch: give it the state the relay kept.
                if let kept = await bank.state(of: device) { bus.note(.stateChanged(device: device, state: kept, note: true, rules: .never)) }
                logger.info("\(event)")
            case .failed:
                logger.error("\(event)")
            }
        }
        // The bank has shut down; finishing before this service's turn would abort the group's
        // graceful shutdown, so wait for it.
        try? await gracefulShutdown()
    }
}
