import MQTTTopics

/// The properties of an MQTT 5 packet (section 2.2.2), each a typed optional that is nil when the
/// packet does not carry it. Which ones a packet may carry is checked when it is decoded
/// (`MQTTPropertyIdentifier`); MQTT 3.1.1 packets have none.
public struct MQTTProperties: Sendable, Hashable {
    /// What a PUBLISH or will payload is (property 0x01).
    public enum PayloadFormat: UInt8, Sendable, Hashable {
        /// Unspecified bytes.
        case bytes = 0
        /// UTF-8 encoded character data.
        case utf8 = 1
    }

    /// 0x01, PUBLISH and will.
    public var payloadFormat: PayloadFormat?
    /// 0x02, PUBLISH and will: seconds the message lives; a server forwards what remains.
    public var messageExpiryInterval: UInt32?
    /// 0x03, PUBLISH and will.
    public var contentType: String?
    /// 0x08, PUBLISH and will: where the receiver should send its answer.
    public var responseTopic: String?
    /// 0x09, PUBLISH and will: what the answer should carry to be matched with the request.
    public var correlationData: [UInt8]?
    /// 0x0B: one in SUBSCRIBE; in a PUBLISH to a client, one per matching subscription that has one.
    public var subscriptionIdentifiers: [Int] = []
    /// 0x11, CONNECT, CONNACK and DISCONNECT: seconds the session outlives its connection
    /// (0: it ends with the connection; 0xFFFFFFFF: it never expires).
    public var sessionExpiryInterval: UInt32?
    /// 0x12, CONNACK: the client identifier the server chose for an empty one.
    public var assignedClientIdentifier: String?
    /// 0x13, CONNACK: the keepalive the client must use instead of its own.
    public var serverKeepAlive: UInt16?
    /// 0x15, CONNECT, CONNACK and AUTH: enhanced authentication (not supported by HouseBroker).
    public var authenticationMethod: String?
    /// 0x16, CONNECT, CONNACK and AUTH.
    public var authenticationData: [UInt8]?
    /// 0x17, CONNECT: whether the server may send reason strings and user properties on failures.
    public var requestProblemInformation: Bool?
    /// 0x18, will only: seconds the server waits before publishing the will.
    public var willDelayInterval: UInt32?
    /// 0x19, CONNECT: whether the client asks for response information in CONNACK.
    public var requestResponseInformation: Bool?
    /// 0x1A, CONNACK.
    public var responseInformation: String?
    /// 0x1C, CONNACK and DISCONNECT: another server to use.
    public var serverReference: String?
    /// 0x1F, acknowledgements, DISCONNECT and AUTH: a human-readable reason.
    public var reasonString: String?
    /// 0x21, CONNECT and CONNACK: QoS 1 and 2 messages the sender accepts unacknowledged at once.
    public var receiveMaximum: UInt16?
    /// 0x22, CONNECT and CONNACK: the highest topic alias the sender accepts (0: none).
    public var topicAliasMaximum: UInt16?
    /// 0x23, PUBLISH: stands for the topic name on this connection.
    public var topicAlias: UInt16?
    /// 0x24, CONNACK: the highest QoS the server supports, when below 2.
    public var maximumQoS: HouseBroker.QoS?
    /// 0x25, CONNACK.
    public var retainAvailable: Bool?
    /// 0x26, every packet but PINGREQ and PINGRESP: name and value pairs, in order, repeats allowed.
    public var userProperties: [MQTTUserProperty] = []
    /// 0x27, CONNECT and CONNACK: the largest packet, in bytes, the sender accepts.
    public var maximumPacketSize: UInt32?
    /// 0x28, CONNACK.
    public var wildcardSubscriptionAvailable: Bool?
    /// 0x29, CONNACK.
    public var subscriptionIdentifiersAvailable: Bool?
    /// 0x2A, CONNACK.
    public var sharedSubscriptionAvailable: Bool?

    public init() {}

    /// Whether no property is set.
    public var isEmpty: Bool { self == MQTTProperties() }
}
