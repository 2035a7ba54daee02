import Foundation
import HouseCore

/// Home Assistant MQTT discovery: a `switch` per device this node answers for, a `select` for the
/// house mode and a `sensor` for energy, all retained under the discovery prefix.
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

    public init(configuration: HouseConfiguration, node: NodeID, layout: TopicLayout, prefix: String = "homeassistant") {
        self.configuration = configuration
        self.node = node
        self.layout = layout
        self.prefix = prefix
    }

    /// The topic on which Home Assistant announces itself (`online` after a restart).
    public var statusTopic: String { "\(prefix)/status" }

    /// A filter matching every discovery topic this node publishes (to find stale ones).
    public var ownTopicsFilter: String { "\(prefix)/+/\(objectNode)/+/config" }

    private var objectNode: String { "housectl_" + Self.slug(node.rawValue) }

    /// Relay devices of this node, and MQTT devices when this node is the first node (one announcer).
    public var announcedDevices: [Device] {
        let firstNode = configuration.nodes.first?.id ?? node
        return configuration.devices.filter { device in
            switch device.endpoint {
            case .relay(let ref): ref.node == node
            case .mqtt, .none: node == firstNode
            }
        }
    }

    /// Every discovery message for the current configuration.
    public func messages() -> [Message] {
        var out: [Message] = []
        let availability = [Availability(topic: layout.nodeStatus(node: node))]
        let deviceInfo = DeviceInfo(identifiers: ["housectl_\(Self.slug(node.rawValue))"], name: "\(configuration.house.name) (\(node))",
                                    swVersion: HousectlVersion.current)
        for device in announcedDevices {
            let roomName = configuration.room(id: device.room)?.name ?? device.room.rawValue
            let display = (device.names.first.map { "\(roomName) \($0)" } ?? device.id.rawValue)
            var entity = Entity(name: display.prefix(1).uppercased() + display.dropFirst(),
                                uniqueID: "housectl_\(Self.slug(device.id.rawValue))",
                                stateTopic: layout.deviceState(room: device.room, device: device.id),
                                availability: availability, device: deviceInfo)
            entity.objectID = entity.uniqueID
            entity.commandTopic = layout.deviceSet(room: device.room, device: device.id)
            (entity.payloadOn, entity.payloadOff, entity.stateOn, entity.stateOff) = ("ON", "OFF", "ON", "OFF")
            entity.retain = false
            entity.qos = 1
            entity.icon = Self.icon(for: device.kind)
            out.append(Message(topic: "\(prefix)/switch/\(objectNode)/\(Self.slug(device.id.rawValue))/config", payload: Self.json(entity)))
        }
        if node == (configuration.nodes.first?.id ?? node) {
            var mode = Entity(name: "House mode", uniqueID: "housectl_\(Self.slug(configuration.house.name))_mode",
                              stateTopic: layout.modeState, availability: availability, device: deviceInfo)
            mode.commandTopic = layout.modeSet
            mode.options = configuration.modes.map(\.id.rawValue)
            mode.qos = 1
            out.append(Message(topic: "\(prefix)/select/\(objectNode)/house_mode/config", payload: Self.json(mode)))
            var energy = Entity(name: "Energy today", uniqueID: "housectl_\(Self.slug(configuration.house.name))_energy_today",
                                stateTopic: layout.energyState, availability: availability, device: deviceInfo)
            (energy.unitOfMeasurement, energy.deviceClass, energy.stateClass) = ("kWh", "energy", "total_increasing")
            out.append(Message(topic: "\(prefix)/sensor/\(objectNode)/energy_today/config", payload: Self.json(energy)))
        }
        return out
    }

    /// Empty retained payloads for discovery topics seen on the broker that the configuration no
    /// longer produces (a removed device).
    public func clearing(stale seenTopics: Set<String>) -> [Message] {
        let current = Set(messages().map(\.topic))
        return seenTopics.subtracting(current).sorted().map { Message(topic: $0, payload: "") }
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
        case .shutter: "mdi:window-shutter"
        case .pump: "mdi:pump"
        case .valve: "mdi:valve"
        case .plug, .outlet, .switch: "mdi:power-socket-eu"
        }
    }

    static func json(_ entity: Entity) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(entity) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The version housectl reports (discovery, `--version`).
public enum HousectlVersion {
    public static let current = "0.1.0"
}
