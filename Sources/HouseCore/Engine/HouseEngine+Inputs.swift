/// Inputs of this node (buttons, contacts, motion sensors) and sensors read over MQTT.
extension HouseEngine {
    /// An input of this node did something: a contact's or motion sensor's new level is the
    /// device's state (retained on its state topic, rules fire); a button press goes out on the
    /// button's `event` topic and fires the button's rules, here on the node it is wired to, so
    /// that a wall button switching a relay of this node works while the broker is down.
    func inputEvent(_ event: InputEvent) {
        guard let device = configuration.device(id: event.device) else { return }
        switch event {
        case .level(let id, let active, let chatter, let initial):
            let state = DeviceState(isOn: active)
            setState(id, state)
            if let cover = noteOpenerContact(id) { publishOpener(cover) }
            publishState(state, of: device)
            effects.log(.info, "input \(event)")
            if chatter > 0 { effects.log(.info, "input \(id): \(chatter) chattering edges debounced") }
            if !initial { deviceStateChanged(id, to: state) }
        case .press(let id, let press):
            notePress(id, press)
            effects.log(.info, "input \(event)")
            effects.publish(layout.deviceEvent(room: device.room, device: id), Self.json(["event_type": press.rawValue]), retain: false)
            fireRules(for: .button(id, press))
        case .chatter:
            effects.log(.info, "input \(event)")
        }
    }

    /// A button's press, of this node or another, counted for the overview: what watches the
    /// house (Apple Home's programmable switch) sees each press as a new count.
    func notePress(_ id: DeviceID, _ press: ButtonPress) {
        guard configuration.device(id: id)?.kind == .button else { return }
        let count = (buttonPresses[id]?.presses ?? 0) + 1
        buttonPresses[id] = HouseOverview.ButtonView(id: id, presses: count, last: press)
    }

    /// A sensor's topic spoke: its reading goes to the house, and a number is mirrored on the
    /// sensor's state topic (Home Assistant's sensor reads it there). A payload without a number
    /// makes the sensor unavailable, with the reason in the log once (not at every message). Its
    /// availability topic follows; a value crossing into a rule's range fires the rule.
    func sensorMessage(_ id: DeviceID, _ payload: [UInt8]) {
        guard let device = configuration.device(id: id), case .sensor(let source) = device.endpoint else { return }
        let reading = source.reading(from: payload, at: clock.now)
        let before = readings[id]
        readings[id] = reading
        // Every node that may coordinate follows the sensor; the coordinator speaks for it.
        guard acting else { return }
        switch reading {
        case .value(let v, _):
            effects.publish(layout.deviceState(room: device.room, device: id), JSONValue.number(v).scalarText ?? "\(v)", retain: true)
            if case .unavailable? = before { effects.log(.info, "sensor \(id) reads again") }
            if !Self.isAvailable(before) { publishAvailability(device, online: true) }
            var previous: Double? = nil
            if case .value(let p, _)? = before { previous = p }
            fireRules(for: .sensor(id, before: previous, after: v))
        case .unavailable(let reason):
            if before != reading { effects.log(.warning, "sensor \(id) unavailable: \(reason)") }
            if Self.isAvailable(before) || before == nil { publishAvailability(device, online: false) }
        }
    }

    /// Sensors whose value is older than their `stale_after` become unavailable (once a minute).
    func checkStaleSensors() {
        let now = clock.now
        for device in configuration.devices {
            guard case .sensor(let source) = device.endpoint, let limit = source.staleAfter,
                  case .value(_, let at)? = readings[device.id], at.duration(to: now) > limit else { continue }
            let reason = "no value on \(source.stateTopic) for more than \(DurationParser.format(limit)) (stale_after)"
            readings[device.id] = .unavailable(reason: reason)
            guard acting else { continue }
            effects.log(.warning, "sensor \(device.id) unavailable: \(reason)")
            publishAvailability(device, online: false)
        }
    }

    private static func isAvailable(_ reading: SensorReading?) -> Bool {
        if case .value? = reading { return true }
        return false
    }
}
