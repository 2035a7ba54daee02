import HouseCore

extension HomeAssistantDiscovery {
    /// One entity's discovery payload (the keys of Home Assistant's MQTT discovery; absent ones
    /// are left out).
    struct Entity: Encodable, Sendable {
        var name: String
        var uniqueID: String
        var objectID: String?
        var commandTopic: String?
        var stateTopic: String
        var payloadOn: String?
        var payloadOff: String?
        var stateOn: String?
        var stateOff: String?
        var options: [String]?
        var unitOfMeasurement: String?
        var deviceClass: String?
        var stateClass: String?
        var icon: String?
        var availability: [Availability]
        var device: DeviceInfo
        var retain: Bool?
        var qos: Int?

        init(name: String, uniqueID: String, stateTopic: String, availability: [Availability], device: DeviceInfo) {
            self.name = name
            self.uniqueID = uniqueID
            self.stateTopic = stateTopic
            self.availability = availability
            self.device = device
        }

        enum CodingKeys: String, CodingKey {
            case name, options, icon, availability, device, retain, qos
            case uniqueID = "unique_id", objectID = "object_id", commandTopic = "command_topic", stateTopic = "state_topic"
            case payloadOn = "payload_on", payloadOff = "payload_off", stateOn = "state_on", stateOff = "state_off"
            case unitOfMeasurement = "unit_of_measurement", deviceClass = "device_class", stateClass = "state_class"
        }
    }

    /// The node's status topic as an entity's availability.
    struct Availability: Encodable, Sendable {
        var topic: String
        var payloadAvailable = "online"
        var payloadNotAvailable = "offline"

        enum CodingKeys: String, CodingKey {
            case topic
            case payloadAvailable = "payload_available", payloadNotAvailable = "payload_not_available"
        }
    }

    /// The Home Assistant device an entity belongs to.
    struct DeviceInfo: Encodable, Sendable {
        var identifiers: [String]
        var name: String
        var manufacturer = "housectl"
        var model = "housectl node"
        var swVersion: String

        init(identifiers: [String], name: String, swVersion: String) {
            self.identifiers = identifiers
            self.name = name
            self.swVersion = swVersion
        }

        enum CodingKeys: String, CodingKey {
            case identifiers, name, manufacturer, model
            case swVersion = "sw_version"
        }
    }
}
