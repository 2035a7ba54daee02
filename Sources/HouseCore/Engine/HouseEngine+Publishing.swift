/// The retained state this node keeps on the broker, as messages of the command that changed it.
extension HouseEngine {
    /// A sensor's availability topic (Home Assistant shows the sensor unavailable while it says `offline`).
    func publishAvailability(_ sensor: Device, online: Bool) {
        effects.publish(layout.deviceAvailability(room: sensor.room, device: sensor.id), online ? "online" : "offline", retain: true)
    }

    /// After every (re)connect: this node's relays' and inputs' states, its covers and openers,
    /// the energy figures (primary node) and the house-level state (coordinator).
    func republish() {
        var levels = relayStates.filter { configuration.device(id: $0.key) != nil }
        for device in configuration.devices where device.input?.node == node && device.kind != .button {
            levels[device.id] = levels[device.id] ?? state(of: device.id)
        }
        for (id, state) in levels.sorted(by: { $0.key < $1.key }) {
            if let d = configuration.device(id: id), d.opener == nil { publishState(state, of: d) }
        }
        for cover in configuration.devices where cover.motor?.node == node || (node == nil && cover.motor != nil) {
            publishCover(cover)
        }
        for cover in configuration.devices where cover.opener?.node == node || (node == nil && cover.opener != nil) {
            publishOpener(cover)
        }
        publishEnergy(force: true, perDevice: true)
        publishHouseState()
        // A new connection: an answer to an earlier ask may have been lost with the old one.
        statesAsked = []
        askStates()
    }

    /// Asks the devices reached over MQTT whose state is unknown for it, where their protocol
    /// allows: a Tasmota device (command topic `cmnd/...`) answers an empty command payload
    /// with its state. The coordinator does, as it serves those devices, once per connection (a
    /// node that connects and starts coordinating at once asks once).
    func askStates() {
        guard acting else { return }
        for device in configuration.devices where knownState(of: device.id) == nil && !statesAsked.contains(device.id) {
            if case .mqtt(let endpoint) = device.endpoint, endpoint.stateTopic != nil, endpoint.commandTopic.hasPrefix("cmnd/") {
                effects.publish(endpoint.commandTopic, "", retain: false)
                statesAsked.insert(device.id)
            }
        }
    }

    /// Compact JSON with sorted keys (every payload the engine publishes), `fallback` if it cannot be encoded.
    static func json<T: Encodable>(_ value: T, fallback: String = "{}") -> String {
        value.sortedJSON(fallback: fallback)
    }
}
