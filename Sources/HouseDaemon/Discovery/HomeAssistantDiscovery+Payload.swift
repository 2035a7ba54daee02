import HouseCore

extension HomeAssistantDiscovery {
    /// One entity's discovery payload (the keys of Home Assistant's MQTT discovery; absent ones
    /// are left out, except `name`, which is null for an entity named by its device alone).
    struct Entity: Encodable, Sendable {
        /// nil: the entity takes its device's name (`"name": null`).
        var name: String?
        var uniqueID: String
        /// The entity id Home Assistant 2025.10 and later gives it (`<domain>.<object id>`).
        var defaultEntityID: String?
        /// The same for older Home Assistant.
        var objectID: String?
        var commandTopic: String?
        /// How a command payload is made from what was chosen (the mode select's `no mode`).
        var commandTemplate: String?
        var stateTopic: String
        /// How the state is read from a JSON payload (a cover's report).
        var valueTemplate: String?
        var payloadOn: String?
        var payloadOff: String?
        var stateOn: String?
        var stateOff: String?
        var options: [String]?
        /// An event entity's event types (a button's presses).
        var eventTypes: [String]?
        var unitOfMeasurement: String?
        var deviceClass: String?
        var stateClass: String?
        var entityCategory: String?
        var icon: String?
        var availability: [Availability]?
        /// `all`: available only while every availability topic says so.
        var availabilityMode: String?
        var device: DeviceInfo
        var origin = Origin()
        var retain: Bool?
        var qos: Int?
        /// A cover's keys (its position and the payloads of its commands and states).
        var cover: CoverKeys?

        init(name: String?, uniqueID: String, stateTopic: String, availability: [Availability]?, device: DeviceInfo) {
            self.name = name
            self.uniqueID = uniqueID
            self.stateTopic = stateTopic
            self.availability = availability
            self.device = device
        }

        enum CodingKeys: String, CodingKey {
            case name, options, icon, availability, device, origin, retain, qos
            case uniqueID = "unique_id", defaultEntityID = "default_entity_id", objectID = "object_id"
            case commandTopic = "command_topic", commandTemplate = "command_template", stateTopic = "state_topic"
            case valueTemplate = "value_template"
            case payloadOn = "payload_on", payloadOff = "payload_off", stateOn = "state_on", stateOff = "state_off"
            case unitOfMeasurement = "unit_of_measurement", deviceClass = "device_class", stateClass = "state_class"
            case entityCategory = "entity_category", eventTypes = "event_types", availabilityMode = "availability_mode"
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(name, forKey: .name)  // null when nil: named by the device
            try c.encode(uniqueID, forKey: .uniqueID)
            try c.encodeIfPresent(defaultEntityID, forKey: .defaultEntityID)
            try c.encodeIfPresent(objectID, forKey: .objectID)
            try c.encodeIfPresent(commandTopic, forKey: .commandTopic)
            try c.encodeIfPresent(commandTemplate, forKey: .commandTemplate)
            try c.encode(stateTopic, forKey: .stateTopic)
            try c.encodeIfPresent(valueTemplate, forKey: .valueTemplate)
            try c.encodeIfPresent(payloadOn, forKey: .payloadOn)
            try c.encodeIfPresent(payloadOff, forKey: .payloadOff)
            try c.encodeIfPresent(stateOn, forKey: .stateOn)
            try c.encodeIfPresent(stateOff, forKey: .stateOff)
            try c.encodeIfPresent(options, forKey: .options)
            try c.encodeIfPresent(eventTypes, forKey: .eventTypes)
            try c.encodeIfPresent(unitOfMeasurement, forKey: .unitOfMeasurement)
            try c.encodeIfPresent(deviceClass, forKey: .deviceClass)
            try c.encodeIfPresent(stateClass, forKey: .stateClass)
            try c.encodeIfPresent(entityCategory, forKey: .entityCategory)
            try c.encodeIfPresent(icon, forKey: .icon)
            try c.encodeIfPresent(availability, forKey: .availability)
            try c.encodeIfPresent(availabilityMode, forKey: .availabilityMode)
            try c.encode(device, forKey: .device)
            try c.encode(origin, forKey: .origin)
            try c.encodeIfPresent(retain, forKey: .retain)
            try c.encodeIfPresent(qos, forKey: .qos)
            try cover?.encode(to: encoder)
        }
    }

    /// The keys of a cover entity with a position (HA's MQTT cover): OPEN / CLOSE / STOP on the
    /// command topic, a percentage on the position topics, the states as housectl publishes them.
    struct CoverKeys: Encodable, Sendable {
        /// Nil for an opener (no position). A cover's report topic, read with `positionTemplate`.
        var positionTopic: String?
        var positionTemplate: String?
        var setPositionTopic: String?
        var payloadOpen = "OPEN"
        var payloadClose = "CLOSE"
        var payloadStop = "STOP"
        var stateOpen = CoverState.open.rawValue
        var stateOpening = CoverState.opening.rawValue
        var stateClosed = CoverState.closed.rawValue
        var stateClosing = CoverState.closing.rawValue
        var positionOpen = 100
        var positionClosed = 0

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encodeIfPresent(positionTopic, forKey: .positionTopic)
            try c.encodeIfPresent(positionTemplate, forKey: .positionTemplate)
            try c.encodeIfPresent(setPositionTopic, forKey: .setPositionTopic)
            try c.encode(payloadOpen, forKey: .payloadOpen)
            try c.encode(payloadClose, forKey: .payloadClose)
            try c.encode(payloadStop, forKey: .payloadStop)
            try c.encode(stateOpen, forKey: .stateOpen)
            try c.encode(stateOpening, forKey: .stateOpening)
            try c.encode(stateClosed, forKey: .stateClosed)
            try c.encode(stateClosing, forKey: .stateClosing)
            if positionTopic != nil {
                try c.encode(positionOpen, forKey: .positionOpen)
                try c.encode(positionClosed, forKey: .positionClosed)
            }
        }

        enum CodingKeys: String, CodingKey {
            case positionTopic = "position_topic", positionTemplate = "position_template", setPositionTopic = "set_position_topic"
            case payloadOpen = "payload_open", payloadClose = "payload_close", payloadStop = "payload_stop"
            case stateOpen = "state_open", stateOpening = "state_opening", stateClosed = "state_closed"
            case stateClosing = "state_closing"
            case positionOpen = "position_open", positionClosed = "position_closed"
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

    /// The Home Assistant device an entity belongs to: a housectl device, a node, or the house.
    struct DeviceInfo: Encodable, Sendable {
        var identifiers: [String]
        var name: String
        var manufacturer = "housectl"
        var model: String
        var swVersion = HousectlVersion.current
        /// The room, for a housectl device: Home Assistant offers it as the device's area.
        var suggestedArea: String?
        /// The node the device hangs off (its identifier).
        var viaDevice: String?
        /// The page, where the house has one (HA's "Visit" link).
        var configurationURL: String?

        enum CodingKeys: String, CodingKey {
            case identifiers, name, manufacturer, model
            case swVersion = "sw_version", suggestedArea = "suggested_area", viaDevice = "via_device"
            case configurationURL = "configuration_url"
        }
    }

    /// Which application published the entity.
    struct Origin: Encodable, Sendable {
        var name = "housectl"
        var swVersion = HousectlVersion.current

        enum CodingKeys: String, CodingKey {
            case name
            case swVersion = "sw_version"
        }
    }
}
