import Foundation
import HouseCore

/// Home Assistant MQTT discovery, retained under the discovery prefix. Every housectl device is
/// a Home Assistant device of its own, named after the device, with its room as suggested area,
/// hanging off its node; its entity has the domain people expect: a `light` for a light, a `fan`
/// for a fan, a `cover` with its position for a cover, a `switch` for the rest (an `outlet` for
/// plugs), a `sensor` for a sensor, and a read-only `binary_sensor`
/// for a device MQTT may not switch (Home Assistant is never offered a control housectl would
/// refuse outright). Each node is a device with a connectivity sensor (its status topic); the
/// house is a device with the mode `select` and the energy `sensor`.
public struct HomeAssistantDiscovery: Sendable {
    /// One retained discovery message.
    public struct Message: Sendable, Equatable {
        public var topic: String
        /// JSON; empty to clear a removed entity.
        public var payload: String
    }

    public let configuration: HouseConfiguration
    public let node: NodeID
    public let layout: TopicLayout
    public let prefix: String
    /// Every discovery message for the configuration, made once (the configuration does not
    /// change while the controller runs; discovery is sent again after every reconnect).
    public private(set) var messages: [Message] = []
    /// Their topics, which a retained discovery topic of this node must be among to stay.
    private var currentTopics: Set<String> = []

    public init(configuration: HouseConfiguration, node: NodeID, layout: TopicLayout, prefix: String = "homeassistant") {
        self.configuration = configuration
        self.node = node
        self.layout = layout
        self.prefix = prefix
        messages = makeMessages()
        currentTopics = Set(messages.map(\.topic))
    }

    /// The topic on which Home Assistant announces itself (`online` after a restart).
    public var statusTopic: String { "\(prefix)/status" }

    /// A filter matching every discovery topic this node publishes (to find stale ones).
    public var ownTopicsFilter: String { "\(prefix)/+/\(objectNode)/+/config" }

    /// This node's part of the discovery topics, and its Home Assistant device's identifier.
    private var objectNode: String { Self.identifier(of: node) }
    private var isFirstNode: Bool { node == (configuration.nodes.first?.id ?? node) }

    /// `housectl_<node>`: a node's Home Assistant device, and its part of the discovery topics.
    static func identifier(of node: NodeID) -> String { "housectl_" + slug(node.rawValue) }

    /// Relay devices of this node, and MQTT devices when this node is the first node (one announcer).
    public var announcedDevices: [Device] {
        configuration.devices.filter { device in
            switch device.endpoint {
            case .relay, .cover, .input, .opener: device.node == node
            case .mqtt, .none, .sensor: isFirstNode
            }
        }
    }

    /// Whether Home Assistant (an MQTT source) may switch `device` at all: not denied to MQTT,
    /// and either no yes is needed or MQTT may give it, or off is safe (a heater: HA may switch
    /// it off; on is refused and snaps back). A pulsed `confirm: true` opener that MQTT may not
    /// confirm has no such command. A cover always has one: stop.
    public func isControllable(_ device: Device) -> Bool {
        let grant = configuration.permissions.grant(for: .mqtt)
        if grant.denyDevices.contains(device.id) { return false }
        return !device.confirm || grant.allowConfirmDevices || device.isSafe(.off) || device.isSafe(.stop)
    }

    /// The Home Assistant domain of `device`'s entity.
    public func domain(of device: Device) -> String {
        let domain = device.homeAssistantDomain
        // A cover without a command topic is read only: its state, no control.
        if device.kind.isInput || device.kind == .sensor || device.opener != nil { return domain }
        guard isControllable(device) else { return "binary_sensor" }
        // Valves are switches here (MQTT discovery's valve needs a position or open/close payloads).
        return domain == "valve" ? "switch" : domain
    }

    /// Every discovery message for the configuration (see `messages`).
    private func makeMessages() -> [Message] {
        var out: [Message] = []
        let availability = [Availability(topic: layout.nodeStatus(node: node))]
        // What the coordinator serves (the mode, devices reached over MQTT) is there while any
        // node that may coordinate is online (`coordination:`), else while the first node is.
        let candidates = configuration.coordination.nodes ?? []
        let houseAvailability = candidates.count > 1 ? candidates.map { Availability(topic: layout.nodeStatus(node: $0)) } : availability
        let houseMode: String? = candidates.count > 1 ? "any" : nil
        for device in announcedDevices {
            let slug = Self.slug(device.id.rawValue)
            let domain = domain(of: device)
            let served = device.node == nil  // the coordinator's: over MQTT, or a sensor
            var entity = Entity(name: nil, uniqueID: "housectl_\(slug)",
                                stateTopic: layout.deviceState(room: device.room, device: device.id),
                                availability: served ? houseAvailability : availability, device: deviceInfo(for: device))
            if served { entity.availabilityMode = houseMode }
            entity.defaultEntityID = "\(domain).housectl_\(slug)"
            entity.objectID = "housectl_\(slug)"
            entity.icon = Self.icon(for: device.kind)
            if case .sensor(let source) = device.endpoint {
                // The value as the house mirrors it on the device's state topic.
                (entity.unitOfMeasurement, entity.deviceClass, entity.stateClass) = (source.unit, source.deviceClass?.rawValue, "measurement")
                // Available while its node is online and it has a fresh value (with several nodes
                // that may coordinate: as the coordinator says, which publishes it again on a takeover).
                let fresh = Availability(topic: layout.deviceAvailability(room: device.room, device: device.id))
                entity.availability = candidates.count > 1 ? [fresh] : availability + [fresh]
                entity.availabilityMode = "all"
                out.append(Message(topic: "\(prefix)/sensor/\(objectNode)/\(slug)/config", payload: Self.json(entity)))
                continue
            }
            if let input = device.input {
                // A button's presses as an event entity; a contact or motion sensor's level.
                if device.kind == .button {
                    entity.stateTopic = layout.deviceEvent(room: device.room, device: device.id)
                    (entity.eventTypes, entity.deviceClass) = (ButtonPress.allCases.map(\.rawValue), "button")
                } else {
                    (entity.payloadOn, entity.payloadOff, entity.deviceClass) = ("ON", "OFF", input.deviceClass)
                }
                out.append(Message(topic: "\(prefix)/\(domain)/\(objectNode)/\(slug)/config", payload: Self.json(entity)))
                continue
            }
            if let opener = device.opener {
                if isControllable(device) {
                    entity.commandTopic = layout.deviceSet(room: device.room, device: device.id)
                    (entity.retain, entity.qos) = (false, 1)
                }
                entity.deviceClass = opener.deviceClass.rawValue
                entity.cover = CoverKeys(positionTopic: nil, setPositionTopic: nil)
                out.append(Message(topic: "\(prefix)/cover/\(objectNode)/\(slug)/config", payload: Self.json(entity)))
                continue
            }
            if let motor = device.motor, domain == "cover" {
                entity.commandTopic = layout.deviceSet(room: device.room, device: device.id)
                (entity.retain, entity.qos, entity.deviceClass) = (false, 1, motor.deviceClass.rawValue)
                // State and position from one message (the report): a stop part way is one change in HA.
                let report = layout.deviceReport(room: device.room, device: device.id)
                entity.stateTopic = report
                entity.valueTemplate = "{{ value_json.state }}"
                entity.cover = CoverKeys(positionTopic: report, positionTemplate: "{{ value_json.position }}",
                                         setPositionTopic: layout.devicePositionSet(room: device.room, device: device.id))
                out.append(Message(topic: "\(prefix)/cover/\(objectNode)/\(slug)/config", payload: Self.json(entity)))
                continue
            }
            (entity.payloadOn, entity.payloadOff) = ("ON", "OFF")
            if domain != "binary_sensor" {
                entity.commandTopic = layout.deviceSet(room: device.room, device: device.id)
                entity.retain = false
                entity.qos = 1
            }
            if domain == "switch" {
                (entity.stateOn, entity.stateOff) = ("ON", "OFF")
                entity.deviceClass = device.kind == .plug || device.kind == .outlet ? "outlet" : "switch"
            }
            out.append(Message(topic: "\(prefix)/\(domain)/\(objectNode)/\(slug)/config", payload: Self.json(entity)))
        }
        // The node: its status, as a connectivity sensor (no availability of its own: it is one).
        let nodeDevice = DeviceInfo(identifiers: [objectNode], name: "housectl \(node)", model: "housectl node",
                                    configurationURL: pageURL)
        var status = Entity(name: "Status", uniqueID: "\(objectNode)_status", stateTopic: layout.nodeStatus(node: node),
                            availability: nil, device: nodeDevice)
        status.defaultEntityID = "binary_sensor.\(objectNode)_status"
        status.objectID = "\(objectNode)_status"
        (status.payloadOn, status.payloadOff) = ("online", "offline")
        (status.deviceClass, status.entityCategory) = ("connectivity", "diagnostic")
        out.append(Message(topic: "\(prefix)/binary_sensor/\(objectNode)/status/config", payload: Self.json(status)))
        // Its version, start (HA shows how long ago: the uptime) and address, from its info topic.
        for (key, name, deviceClass) in [("version", "Version", nil), ("started", "Started", "timestamp"), ("address", "Address", nil)] {
            var entity = Entity(name: name, uniqueID: "\(objectNode)_\(key)", stateTopic: layout.nodeInfo(node: node),
                                availability: availability, device: nodeDevice)
            entity.defaultEntityID = "sensor.\(objectNode)_\(key)"
            entity.objectID = "\(objectNode)_\(key)"
            entity.valueTemplate = "{{ value_json.\(key) }}"
            (entity.deviceClass, entity.entityCategory) = (deviceClass, "diagnostic")
            out.append(Message(topic: "\(prefix)/sensor/\(objectNode)/\(key)/config", payload: Self.json(entity)))
        }
        if isFirstNode {
            let house = "housectl_" + Self.slug(configuration.house.name)
            let houseDevice = DeviceInfo(identifiers: ["\(house)_house"], name: configuration.house.name, model: "housectl house",
                                         viaDevice: objectNode, configurationURL: pageURL)
            var mode = Entity(name: "House mode", uniqueID: "\(house)_mode", stateTopic: layout.modeState,
                              availability: houseAvailability, device: houseDevice)
            mode.availabilityMode = houseMode
            mode.defaultEntityID = "select.housectl_house_mode"
            mode.objectID = "housectl_house_mode"
            mode.commandTopic = layout.modeSet
            // Every value the mode's state topic carries: a mode, `none`, or `mixed` (rooms in
            // different modes). Choosing one of the last two is refused and snaps back. HA reads
            // the payload `none` as unknown: it shows `no mode` instead.
            mode.options = configuration.modes.map(\.id.rawValue) + [Self.noMode, "mixed"]
            mode.valueTemplate = "{{ '\(Self.noMode)' if value == 'none' else value }}"
            mode.commandTemplate = "{{ 'none' if value == '\(Self.noMode)' else value }}"
            mode.icon = "mdi:home-switch"
            mode.qos = 1
            out.append(Message(topic: "\(prefix)/select/\(objectNode)/house_mode/config", payload: Self.json(mode)))
            // Commands refused (or failed) from anywhere, with the device, the source and the
            // reason, in HA's logbook: no refusal is silent there.
            var refusals = Entity(name: "Refused command", uniqueID: "\(house)_refused", stateTopic: layout.events,
                                  availability: houseAvailability, device: houseDevice)
            refusals.availabilityMode = houseMode
            refusals.defaultEntityID = "event.housectl_refused_command"
            refusals.objectID = "housectl_refused_command"
            refusals.eventTypes = ["refused", "failure"]
            refusals.valueTemplate = Self.refusalTemplate
            refusals.icon = "mdi:hand-back-left"
            out.append(Message(topic: "\(prefix)/event/\(objectNode)/refused_command/config", payload: Self.json(refusals)))
            var energy = Entity(name: "Energy today", uniqueID: "\(house)_energy_today", stateTopic: layout.energyState,
                                availability: availability, device: houseDevice)
            energy.defaultEntityID = "sensor.housectl_energy_today"
            energy.objectID = "housectl_energy_today"
            (energy.unitOfMeasurement, energy.deviceClass, energy.stateClass) = ("kWh", "energy", "total_increasing")
            out.append(Message(topic: "\(prefix)/sensor/\(objectNode)/energy_today/config", payload: Self.json(energy)))
            // Each metered device's energy today, on its own device (published by this node).
            for device in configuration.devices where (device.watts ?? 0) > 0 {
                let slug = Self.slug(device.id.rawValue)
                var meter = Entity(name: "Energy today", uniqueID: "housectl_\(slug)_energy_today",
                                   stateTopic: layout.deviceEnergy(room: device.room, device: device.id),
                                   availability: availability, device: deviceInfo(for: device))
                meter.defaultEntityID = "sensor.housectl_\(slug)_energy_today"
                meter.objectID = "housectl_\(slug)_energy_today"
                (meter.unitOfMeasurement, meter.deviceClass, meter.stateClass) = ("kWh", "energy", "total_increasing")
                out.append(Message(topic: "\(prefix)/sensor/\(objectNode)/\(slug)_energy/config", payload: Self.json(meter)))
            }
        }
        return out
    }

    /// The mode select's option for the state `none` (HA reads the payload `none` as unknown).
    static let noMode = "no mode"

    /// An `events` record as the refused-command event: its outcome as the event type, the
    /// device or mode, the source and the reason; nothing for a command carried out.
    static let refusalTemplate = """
        {% if value_json.outcome in ['refused', 'failure'] %}{{ {'event_type': value_json.outcome, \
        'device': value_json.parameters.device | default(value_json.parameters.mode | default('')), \
        'source': value_json.source, 'intent': value_json.intent, 'reason': value_json.dialog} | tojson }}{% endif %}
        """

    /// The Home Assistant device of a housectl device: named after it, with its room first where
    /// the name alone is another device's too ("Living room ceiling light": HA's lists, the
    /// Energy dashboard and Assist's answers tell them apart), in its room, on its node.
    func deviceInfo(for device: Device) -> DeviceInfo {
        let room = configuration.room(id: device.room)?.name ?? device.room.rawValue
        let named = Self.displayName(of: device)
        let repeated = configuration.devices.contains { $0.id != device.id && Self.displayName(of: $0).lowercased() == named.lowercased() }
        let name = repeated ? room + " " + named.lowercased() : named
        return DeviceInfo(identifiers: ["housectl_device_\(Self.slug(device.id.rawValue))"],
                          name: name.prefix(1).uppercased() + name.dropFirst(),
                          model: "\(device.kind.rawValue) (\(Self.connection(of: device)))",
                          suggestedArea: room,
                          viaDevice: device.node.map(Self.identifier(of:)) ?? objectNode, configurationURL: pageURL)
    }

    /// A device's first name, or its id.
    static func displayName(of device: Device) -> String { device.names.first ?? device.id.rawValue }

    /// The page's address, when the house has one (`web:`, served by the first node): its bind
    /// address, or the first node's name on the local network (`<node>.local`) when it listens
    /// on every address.
    var pageURL: String? {
        guard let web = configuration.web, let first = configuration.nodes.first?.id else { return nil }
        let wildcard = web.bind == "0.0.0.0" || web.bind == "::" || web.bind.isEmpty
        var host = wildcard ? "\(first.rawValue).local" : web.bind
        if host.contains(":") { host = "[\(host)]" }
        return "http://\(host):\(web.port)/"
    }

    /// How a device is reached, for its model line: its node and channel, or its MQTT topic.
    static func connection(of device: Device) -> String {
        switch device.endpoint {
        case .relay(let ref): "relay \(ref.node) channel \(ref.channel)"
        case .mqtt: "MQTT"
        case .none: "virtual"
        case .sensor(let source): "MQTT \(source.stateTopic)"
        case .cover(let motor): "motor on \(motor.node) channels \(motor.upChannel) up, \(motor.downChannel) down"
        case .input(let input): "input on \(input.node) line \(input.line)"
        case .opener(let opener): "opener on \(opener.node) channel \(opener.channel)"
        }
    }

    /// Empty retained payloads for discovery topics seen on the broker that the configuration no
    /// longer produces (a removed device).
    public func clearing(stale seenTopics: Set<String>) -> [Message] {
        seenTopics.subtracting(currentTopics).sorted().map { Message(topic: $0, payload: "") }
    }

    static func slug(_ s: String) -> String {
        String(s.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    static func icon(for kind: DeviceKind) -> String? {
        switch kind {
        case .light: "mdi:lightbulb"
        case .fan: "mdi:fan"
        case .heater: "mdi:radiator"
        case .door: "mdi:garage"
        case .cover: nil  // Home Assistant's icon for the device class (and its state)
        case .button: "mdi:gesture-tap-button"
        case .contact, .motion: nil
        case .pump: "mdi:pump"
        case .valve: "mdi:valve"
        case .plug, .outlet, .switch: "mdi:power-socket-eu"
        case .sensor: nil  // Home Assistant's icon for the device class
        }
    }

    static func json(_ entity: Entity) -> String { entity.sortedJSON() }
}

/// The version housectl reports (discovery, `--version`).
public enum HousectlVersion {
    public static let current = "0.1.0"
}
