/// An MQTT application message: what is published, received, used as last will or birth message.
public struct MQTTMessage: Sendable, Hashable, CustomStringConvertible {
    /// The topic name (never contains wildcards).
    public var topic: String
    /// The payload bytes, copied out of libmosquitto's buffers.
    public var payload: [UInt8]
    /// The quality of service it was published or delivered with.
    public var qos: MQTTQoS
    /// Whether the broker retains it (on publish). On receive, the flag as the broker delivered
    /// it: set for a message from its retained store, and for a live retained publish on a
    /// subscription with `retainAsPublished`.
    public var retain: Bool
    /// Held out of line, and nil when empty: most messages carry no properties, and a message
    /// stays one pointer larger than without them (the receive path copies it per subscription).
    private var storedProperties: PropertyStorage?

    /// The MQTT 5 properties: sent on an MQTT 5 connection, dropped on a 3.1.1 one (see
    /// `MQTTPublishProperties`); filled from what the broker delivered on receive.
    ///
    /// Read in place: reading one property (a command's message expiry, its response topic)
    /// copies no set of them, and a message without any (most of them, every one over MQTT
    /// 3.1.1) builds none, it lends the one empty set.
    public var properties: MQTTPublishProperties {
        _read {
            if let storedProperties { yield storedProperties.value } else { yield Self.noProperties }
        }
        set { storedProperties = newValue.isEmpty ? nil : PropertyStorage(newValue) }
    }

    /// What `properties` lends a message without any.
    private static let noProperties = MQTTPublishProperties()

    /// Whether any property is set.
    var hasProperties: Bool { storedProperties != nil }

    public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false,
                properties: MQTTPublishProperties = MQTTPublishProperties()) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.storedProperties = properties.isEmpty ? nil : PropertyStorage(properties)
    }

    /// A message with a UTF-8 text payload.
    public init(topic: String, string: String, qos: MQTTQoS = .atMostOnce, retain: Bool = false,
                properties: MQTTPublishProperties = MQTTPublishProperties()) {
        self.init(topic: topic, payload: Array(string.utf8), qos: qos, retain: retain, properties: properties)
    }

    /// The receive path's initializer: no empty-properties test when there are none.
    init(received topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool, properties: MQTTPublishProperties?) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.storedProperties = properties.map(PropertyStorage.init)
    }

    /// The payload decoded as UTF-8, or nil when it is not valid UTF-8.
    public var string: String? { String(validating: payload, as: UTF8.self) }

    public var description: String {
        let body = string.map { $0.count > 64 ? String($0.prefix(64)) + "…" : $0 } ?? "<\(payload.count) bytes>"
        return "\(topic) [\(qos)\(retain ? ", retained" : "")] \(body)"
    }

    public static func == (a: MQTTMessage, b: MQTTMessage) -> Bool {
        a.topic == b.topic && a.payload == b.payload && a.qos == b.qos && a.retain == b.retain
            && a.storedProperties?.value == b.storedProperties?.value
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(topic)
        hasher.combine(payload)
        hasher.combine(qos)
        hasher.combine(retain)
        hasher.combine(storedProperties?.value)
    }

    /// An immutable box: a change of the properties makes a new one.
    private final class PropertyStorage: Sendable {
        let value: MQTTPublishProperties
        init(_ value: MQTTPublishProperties) { self.value = value }
    }
}
