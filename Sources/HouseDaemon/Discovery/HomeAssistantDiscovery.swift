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
    public let node: String
    public let layout: TopicLayout
    public let prefix: String

    public init(configuration: HouseConfiguration, node: String, layout: TopicLayout, prefix: String = "homeassistant") {
        self.configuration = configuration
        self.node = node
        self.layout = layout
        self.prefix = prefix
    }

    /// The topic on which Home Assistant announces itself (`online` after a restart).
    public var statusTopic: String { "\(prefix)/status" }

    /// A filter matching every discovery topic this node publishes (to find stale ones).
    public var ownTopicsFilter: String { "\(prefix)/+/\(objectNode)/+/config" }

    private var objectNode: String { "housectl_" + Self.slug(node) }

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
        let availability: [[String: Any]] = [[
            "topic": layout.nodeStatus(node: node),
            "payload_available": "online",
            "payload_not_available": "offline",
        ]]
        let deviceInfo: [String: Any] = [
            "identifiers": ["housectl_\(Self.slug(node))"],
            "name": "\(configuration.house.name) (\(node))",
            "manufacturer": "housectl",
            "model": "housectl node",
            "sw_version": HousectlVersion.current,
        ]
        for device in announcedDevices {
            let roomName = configuration.room(id: device.room)?.name ?? device.room
            let display = (device.names.first.map { "\(roomName) \($0)" } ?? device.id)
            var payload: [String: Any] = [
                "name": display.prefix(1).uppercased() + display.dropFirst(),
                "unique_id": "housectl_\(Self.slug(device.id))",
                "object_id": "housectl_\(Self.slug(device.id))",
                "command_topic": layout.deviceSet(room: device.room, device: device.id),
                "state_topic": layout.deviceState(room: device.room, device: device.id),
                "payload_on": "ON",
                "payload_off": "OFF",
                "state_on": "ON",
                "state_off": "OFF",
                "availability": availability,
                "device": deviceInfo,
                "retain": false,
                "qos": 1,
            ]
            if let icon = Self.icon(for: device.kind) { payload["icon"] = icon }
            out.append(Message(topic: "\(prefix)/switch/\(objectNode)/\(Self.slug(device.id))/config", payload: Self.json(payload)))
        }
        if node == (configuration.nodes.first?.id ?? node) {
            out.append(Message(topic: "\(prefix)/select/\(objectNode)/house_mode/config", payload: Self.json([
                "name": "House mode",
                "unique_id": "housectl_\(Self.slug(configuration.house.name))_mode",
                "command_topic": layout.modeSet,
                "state_topic": layout.modeState,
                "options": configuration.modes.map(\.id),
                "availability": availability,
                "device": deviceInfo,
                "qos": 1,
            ])))
            out.append(Message(topic: "\(prefix)/sensor/\(objectNode)/energy_today/config", payload: Self.json([
                "name": "Energy today",
                "unique_id": "housectl_\(Self.slug(configuration.house.name))_energy_today",
                "state_topic": layout.energyState,
                "unit_of_measurement": "kWh",
                "device_class": "energy",
                "state_class": "total_increasing",
                "availability": availability,
                "device": deviceInfo,
            ])))
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

    static func json(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
              let s = String(data: data, encoding: .utf8)
        else { return "{}" }
        return s
    }
}

/// The version housectl reports (discovery, `--version`).
public enum HousectlVersion {
    public static let current = "0.1.0"
}
