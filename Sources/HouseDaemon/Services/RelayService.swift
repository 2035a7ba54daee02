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
            // On the bank's lane also when it wakes from a wait: no other thread between.
            group.addTask { await withTaskExecutorPreference(bank.executor) { await bank.run() } }
            try? await gracefulShutdown()
            let outcomes = await bank.shutdown()
            for o in outcomes { logger.info("shutdown: \(o)") }
            await group.waitForAll()
            await bank.stopObserving()
        }
    }
}

/// What follows each thing the relays do (on command, at the end of a pulse, by the watchdog, for
/// an interlock, at shutdown), called by the bank as it happens (`RelayBank.observe`): saves each
/// state for `power_on: restore`, publishes the retained state at once (before the command that
/// switched returns: no task to wake, no wait for the command's turn to end) and puts the change
/// on the bus, which tells the house service and fires device-state rules in turn. A command's
/// edge goes on the bus only when a rule watches the device (the command told the service).
struct RelayEdgeFollower: Sendable {
    let configuration: HouseConfiguration
    let gateway: IntentGateway
    let bus: CommandBus
    let store: StateStore
    let clock: any WallClock
    let logger: Logger

    func follow(_ event: RelayEvent, state current: DeviceState?) {
        switch event {
        case .switched(let device, let state, let cause):
            let now = clock.now
            // The state goes out first (what a waiting sender sees), then it is saved.
            defer { do { try store.saveRelayState(device: device, state: state, at: now.date) } catch { logger.error("\(error)") } }
            guard let d = configuration.device(id: device) else {
                // A cover's winding: the cover moves on, in turn with the commands.
                if cause != .command { logger.info("\(event)") }
                bus.note(.coverEdge(relay: device, on: state.isOn, at: now))
                return
            }
            if cause != .command { logger.info("\(event)") }
            if d.opener != nil {
                // An opener's state topic says where the cover is, not whether its button is pressed.
                bus.note(.openerEdge(device: device))
                return
            }
            gateway.publishState(state, of: d)
            // A command's edge is already known to the service (each command path notes the state
            // it switched to, also for a switch the safety rules put off; the change queued here
            // comes after newer commands already queued, and noting it could undo one of them):
            // it goes on the bus only for the rules that watch the device. What the bank did on
            // its own (pulse end, watchdog, interlock, shutdown) is noted, with the house's energy
            // figure.
            let note = cause != .command
            guard note || gateway.stateWatchedDevices.contains(device) else { return }
            bus.note(.stateChanged(device: device, state: state, note: note, rules: .always))
        case .watchdog:
            logger.warning("\(event)")
            gateway.events.publish(.json(IntentGateway.json(["event": "watchdog", "text": event.description])))
        case .cancelled(let device, _, _):
            // The service expected the cancelled switch: give it the state the relay kept.
            if let current { bus.note(.stateChanged(device: device, state: current, note: true, rules: .never)) }
            logger.info("\(event)")
        case .failed:
            logger.error("\(event)")
        }
    }
}
