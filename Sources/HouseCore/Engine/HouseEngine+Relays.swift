/// What follows each thing the relays do (on command, at the end of a pulse, by the watchdog, for
/// an interlock, at shutdown): the state published and recorded for `power_on: restore`; a
/// winding moves its cover, an opener's relay its state; a change the relays made on their own is
/// the device's new state (and energy); a change a rule watches fires it once the command is done.
extension HouseEngine {
    func relayEvents(_ events: [RelayEvent]) {
        for event in events { relayEvent(event) }
    }

    private func relayEvent(_ event: RelayEvent) {
        let now = clock.now
        switch event {
        case .switched(let device, let state, let cause):
            effects.records.append(.relayState(device, state, at: now.date))
            if cause != .command { effects.log(.info, "\(event)") }
            guard let d = configuration.device(id: device) else {
                // A cover's winding: the cover moves on.
                coverEdge(relay: device, on: state.isOn, at: now)
                return
            }
            if d.opener != nil {
                // An opener's state topic says where the cover is, not whether its button is pressed.
                publishOpener(d)
                return
            }
            publishState(state, of: d)
            // A command's edge is known already (the command set the state it switched to, also
            // for a switch the safety rules put off); what the relays did on their own is the
            // device's new state.
            if cause != .command {
                setState(device, state)
                energyMoved()
            }
            if cause != .command || stateWatchedDevices.contains(device) { edgesForRules.append((device, state)) }
        case .watchdog:
            effects.log(.warning, "\(event)")
            effects.publish(layout.events, HouseEngine.json(["event": "watchdog", "text": event.description]), retain: false)
        case .cancelled(let device, _, _):
            // The engine expected the cancelled switch: the state the relay kept.
            if configuration.device(id: device) != nil, let kept = relays?.states[device] {
                setState(device, kept)
                energyMoved()
            }
            effects.log(.info, "\(event)")
        case .failed:
            effects.log(.error, "\(event)")
        }
    }

    /// The rules of the state changes the relays made during the command, once it is done
    /// (each at depth 0: a change, not a rule, fires them).
    func fireEdgeRules() {
        while !edgesForRules.isEmpty {
            let edges = edgesForRules
            edgesForRules = []
            for (device, state) in edges { deviceStateChanged(device, to: state) }
        }
    }

    /// Applies each relay's shutdown policy, published and recorded as it happens.
    func shutDownRelays() {
        guard relays != nil else { return }
        var events: [RelayEvent] = []
        let outcomes = relays!.shutdown(at: clock.now, events: &events)
        relayEvents(events)
        for o in outcomes { effects.log(.info, "shutdown: \(o)") }
    }

    /// The relays' states now (what a reconnect publishes again).
    var relayStates: [DeviceID: DeviceState] { relays?.states ?? [:] }
}
