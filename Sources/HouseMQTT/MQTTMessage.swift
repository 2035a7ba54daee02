/// An MQTT application message: what is published, received, used as last will or birth message.
public struct MQTTMessage: Sendable, Hashable, CustomStringConvertible {
    /// The topic name (never contains wildcards).
    public var topic: String
    /// The payload bytes, copied out of libmosquitto's buffers.
    public var payload: [UInt8]
    /// The quality of service it was published or delivered with.
    public var qos: MQTTQoS
    /// Whether the broker retains it (on publish) or delivered it from its retained store (on receive).
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    /// A message with a UTF-8 text payload.
    public init(topic: String, string: String, qos: MQTTQoS = .atMostOnce, retain: Bool = false) {
        self.init(topic: topic, payload: Array(string.utf8), qos: qos, retain: retain)
    }

    /// The payload decoded as UTF-8, or nil when it is not valid UTF-8.
    public var string: String? { String(validating: payload, as: UTF8.self) }

    public var description: String {
        let body = string.map { $0.count > 64 ? String($0.prefix(64)) + "…" : $0 } ?? "<\(payload.count) bytes>"
        return "\(topic) [\(qos)\(retain ? ", retained" : "")] \(body)"
    }
}
