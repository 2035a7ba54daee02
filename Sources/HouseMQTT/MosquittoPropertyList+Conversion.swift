import MQTTTopics
import Foundation
internal import CMosquitto

/// Typed values to property lists and back: the only place that knows property identifiers.
extension MosquittoPropertyList {
    static let payloadFormatIndicator = Int32(MQTT_PROP_PAYLOAD_FORMAT_INDICATOR.rawValue)
    static let messageExpiryInterval = Int32(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL.rawValue)
    static let contentType = Int32(MQTT_PROP_CONTENT_TYPE.rawValue)
    static let responseTopic = Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue)
    static let correlationData = Int32(MQTT_PROP_CORRELATION_DATA.rawValue)
    static let subscriptionIdentifier = Int32(MQTT_PROP_SUBSCRIPTION_IDENTIFIER.rawValue)
    static let sessionExpiryInterval = Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue)
    static let willDelayInterval = Int32(MQTT_PROP_WILL_DELAY_INTERVAL.rawValue)
    static let receiveMaximum = Int32(MQTT_PROP_RECEIVE_MAXIMUM.rawValue)
    static let subscriptionIdentifiersAvailable = Int32(MQTT_PROP_SUBSCRIPTION_ID_AVAILABLE.rawValue)
    static let reasonString = Int32(MQTT_PROP_REASON_STRING.rawValue)
    static let userProperty = Int32(MQTT_PROP_USER_PROPERTY.rawValue)

    // MARK: Swift values to lists

    /// The list for a PUBLISH (or, with `willDelay`, for a last will) of `message`. Subscription
    /// identifiers are only encoded with `includingSubscriptionIdentifiers` (what a broker sends;
    /// for tests): a client must not send them.
    convenience init(
        _ properties: MQTTPublishProperties, topic: String, willDelay: UInt32? = nil,
        includingSubscriptionIdentifiers: Bool = false
    ) throws(MQTTError) {
        self.init()
        func context(_ name: String) -> Context { Context(subject: topic, property: name) }
        if let format = properties.payloadFormatIndicator {
            try add(byte: format.rawValue, Self.payloadFormatIndicator, context("payload format indicator"))
        }
        if let expiry = properties.messageExpiryInterval {
            try add(int32: expiry, Self.messageExpiryInterval, context("message expiry interval"))
        }
        if let contentType = properties.contentType {
            try add(string: contentType, Self.contentType, context("content type"))
        }
        if let responseTopic = properties.responseTopic {
            try add(string: responseTopic, Self.responseTopic, context("response topic"))
        }
        if let correlationData = properties.correlationData {
            try add(binary: correlationData, Self.correlationData, context("correlation data"))
        }
        for property in properties.userProperties {
            try add(name: property.name, value: property.value, Self.userProperty, context("user property '\(property.name)'"))
        }
        if let willDelay {
            try add(int32: willDelay, Self.willDelayInterval, context("will delay interval"))
        }
        if includingSubscriptionIdentifiers {
            for id in properties.subscriptionIdentifiers {
                guard let value = UInt32(exactly: id) else { throw context("subscription identifier").error("\(id) is out of range") }
                try add(varint: value, Self.subscriptionIdentifier, context("subscription identifier"))
            }
        }
    }

    /// The list for a SUBSCRIBE with subscription identifier `identifier`; nil without one.
    static func subscribe(identifier: Int?, filter: String) throws(MQTTError) -> MosquittoPropertyList? {
        guard let identifier else { return nil }
        let context = Context(subject: filter, property: "subscription identifier")
        guard let value = UInt32(exactly: identifier) else { throw context.error("\(identifier) is out of range") }
        let list = MosquittoPropertyList()
        try list.add(varint: value, subscriptionIdentifier, context)
        return list
    }

    /// The list for a CONNECT: the session expiry interval, when there is one.
    static func connect(sessionExpiry: UInt32?) throws(MQTTError) -> MosquittoPropertyList? {
        guard let sessionExpiry else { return nil }
        let list = MosquittoPropertyList()
        try list.add(int32: sessionExpiry, sessionExpiryInterval, Context(subject: "CONNECT", property: "session expiry interval"))
        return list
    }

    // MARK: Lists to Swift values

    /// A received PUBLISH's list: its message properties (nil when it has none: the client's
    /// own subscription identifiers and a topic alias, which libmosquitto has already resolved,
    /// are none) and the route its subscription identifiers give.
    static func received(_ list: OpaquePointer?) -> (properties: MQTTPublishProperties?, route: DeliveryRoute) {
        guard let list else { return (nil, .topic) }
        // The common MQTT 5 case, one subscription identifier of the client's own: read without
        // building anything.
        if mosquitto_property_next(list) == nil, mosquitto_property_identifier(list) == subscriptionIdentifier {
            var value: UInt32 = 0
            if mosquitto_property_read_varint(list, subscriptionIdentifier, &value, false) != nil,
               ClientState.ownIdentifiers.contains(Int(value)) {
                return (nil, .identifier(Int(value)))
            }
        }
        var properties = MQTTPublishProperties()
        var identifiers: [Int] = []
        var cursor: OpaquePointer? = list
        while let property = cursor {
            switch mosquitto_property_identifier(property) {
            case payloadFormatIndicator:
                var value: UInt8 = 0
                if mosquitto_property_read_byte(property, payloadFormatIndicator, &value, false) != nil {
                    properties.payloadFormatIndicator = MQTTPayloadFormatIndicator(rawValue: value)
                }
            case messageExpiryInterval:
                var value: UInt32 = 0
                if mosquitto_property_read_int32(property, messageExpiryInterval, &value, false) != nil {
                    properties.messageExpiryInterval = value
                }
            case contentType:
                properties.contentType = readString(property, contentType)
            case responseTopic:
                properties.responseTopic = readString(property, responseTopic)
            case correlationData:
                var value: UnsafeMutableRawPointer?
                var length: UInt16 = 0
                if mosquitto_property_read_binary(property, correlationData, &value, &length, false) != nil {
                    properties.correlationData = value.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(length))) } ?? []
                    free(value)
                }
            case userProperty:
                var name: UnsafeMutablePointer<CChar>?
                var value: UnsafeMutablePointer<CChar>?
                if mosquitto_property_read_string_pair(property, userProperty, &name, &value, false) != nil {
                    properties.userProperties.append(MQTTUserProperty(name.map { String(cString: $0) } ?? "", value.map { String(cString: $0) } ?? ""))
                    free(name)
                    free(value)
                }
            case subscriptionIdentifier:
                var value: UInt32 = 0
                if mosquitto_property_read_varint(property, subscriptionIdentifier, &value, false) != nil {
                    identifiers.append(Int(value))
                    if !ClientState.ownIdentifiers.contains(Int(value)) { properties.subscriptionIdentifiers.append(Int(value)) }
                }
            default:
                break  // topic alias (resolved by libmosquitto), anything a broker should not send
            }
            cursor = mosquitto_property_next(property)
        }
        let route: DeliveryRoute = switch identifiers.count {
        case 0: .topic
        case 1: .identifier(identifiers[0])
        default: .identifiers(identifiers)
        }
        return (properties.isEmpty ? nil : properties, route)
    }

    /// What the client needs of a CONNACK's list: the broker's receive maximum (how many QoS 1/2
    /// publishes may await their acknowledgement) and its reason string.
    static func connack(_ list: OpaquePointer?) -> ConnackProperties {
        guard list != nil else { return ConnackProperties() }
        var result = ConnackProperties()
        var maximum: UInt16 = 0
        if mosquitto_property_read_int16(list, receiveMaximum, &maximum, false) != nil { result.receiveMaximum = Int(maximum) }
        result.reasonString = readString(list, reasonString)
        var available: UInt8 = 1
        if mosquitto_property_read_byte(list, subscriptionIdentifiersAvailable, &available, false) != nil {
            result.subscriptionIdentifiersAvailable = available != 0
        }
        return result
    }

    /// The first string property `id` from `list`, copied (libmosquitto's copy is freed).
    private static func readString(_ list: OpaquePointer?, _ id: Int32) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard mosquitto_property_read_string(list, id, &value, false) != nil else { return nil }
        defer { free(value) }
        return value.map { String(cString: $0) } ?? ""
    }
}
