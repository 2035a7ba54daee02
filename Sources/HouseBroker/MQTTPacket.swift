import NIOCore

/// An MQTT control packet as the broker sees it (both directions, MQTT 3.1.1 and 5). The MQTT 5
/// fields (reason codes, properties) are ignored when the packet is written for a 3.1.1 client;
/// a 3.1.1 packet decodes with success codes and no properties. The rare, large packets are
/// `indirect`, so the frequent ones stay small.
enum MQTTPacket {
    indirect case connect(ConnectPacket)
    indirect case connack(ConnackPacket)
    case publish(PublishPacket)
    case puback(UInt16, MQTTReasonCode = .success)
    case pubrec(UInt16, MQTTReasonCode = .success)
    case pubrel(UInt16, MQTTReasonCode = .success)
    case pubcomp(UInt16, MQTTReasonCode = .success)
    case subscribe(SubscribePacket)
    /// One code per requested filter: the granted QoS (`.granted(qos)`) or why not (a 3.1.1
    /// client sees 0x80 for every failure).
    case suback(packetID: UInt16, codes: [MQTTReasonCode])
    case unsubscribe(packetID: UInt16, filters: [String])
    /// One code per filter (MQTT 5 only; 3.1.1 UNSUBACK has none).
    case unsuback(packetID: UInt16, codes: [MQTTReasonCode])
    case pingreq
    case pingresp
    indirect case disconnect(DisconnectPacket)
    /// MQTT 5 enhanced authentication, which HouseBroker does not take part in.
    indirect case auth(reasonCode: MQTTReasonCode, properties: MQTTProperties)

    /// The packet's type.
    var type: MQTTPacketType {
        switch self {
        case .connect: .connect
        case .connack: .connack
        case .publish: .publish
        case .puback: .puback
        case .pubrec: .pubrec
        case .pubrel: .pubrel
        case .pubcomp: .pubcomp
        case .subscribe: .subscribe
        case .suback: .suback
        case .unsubscribe: .unsubscribe
        case .unsuback: .unsuback
        case .pingreq: .pingreq
        case .pingresp: .pingresp
        case .disconnect: .disconnect
        case .auth: .auth
        }
    }

    /// A short name for logs (`PUBACK`): its type's.
    var name: String { type.description }
}

/// The variable header and payload of a CONNECT packet.
struct ConnectPacket {
    var version: MQTTProtocolVersion
    var clientID: String
    /// Clean session (3.1.1) or clean start (5): begin with a new session.
    var cleanStart: Bool
    var keepAlive: UInt16
    var will: WillMessage?
    var username: String?
    var password: [UInt8]?
    /// MQTT 5 only; empty for 3.1.1.
    var properties = MQTTProperties()
}

/// The will message carried by CONNECT.
struct WillMessage {
    var topic: String
    var payload: ByteBuffer
    var qos: HouseBroker.QoS
    var retain: Bool
    /// MQTT 5: the will properties that travel with the message (its expiry counts from when it
    /// is published); nil for 3.1.1 and when there are none.
    var properties: MessageProperties? = nil
    /// MQTT 5: seconds to wait after the connection ends before publishing (MQTT-3.1.3-9).
    var delayInterval: UInt32 = 0

    /// Bytes a will waiting for its delay is counted as (against `maximumTotalQueuedBytes`).
    var size: Int { topic.utf8.count + payload.readableBytes + (properties?.encodedForwarded.readableBytes ?? 0) }
}

/// A CONNACK as the broker sends it.
struct ConnackPacket {
    var sessionPresent: Bool
    /// What a 3.1.1 client is told.
    var returnCode: HouseBroker.ConnectReturnCode
    /// What an MQTT 5 client is told.
    var reasonCode: MQTTReasonCode
    /// MQTT 5: what the broker supports and decided (see `BrokerCore.connackProperties`).
    var properties = MQTTProperties()
}

/// A PUBLISH packet, as received or as sent to one client.
struct PublishPacket {
    /// Empty in MQTT 5 when `topicAlias` stands for it.
    var topic: String
    var payload: ByteBuffer
    var qos: HouseBroker.QoS
    var retain: Bool
    var dup: Bool
    /// Zero for QoS 0.
    var packetID: UInt16
    /// MQTT 5: the properties that travel with the message (nil when none).
    var properties: MessageProperties? = nil
    /// MQTT 5: the topic alias of this packet (received: as the client sent it; sent: ours).
    var topicAlias: UInt16? = nil
    /// MQTT 5, sent only: the identifiers of the subscriptions the message matched.
    var subscriptionIdentifiers: [Int] = []
    /// MQTT 5, sent only: the seconds of the message expiry interval that remain.
    var messageExpiryInterval: UInt32? = nil
}

/// A SUBSCRIBE packet.
struct SubscribePacket {
    var packetID: UInt16
    /// The filters in order, each with the options requested (MQTT 5 options are all off for 3.1.1).
    var subscriptions: [(filter: String, options: HouseBroker.Subscription)]
}

/// A DISCONNECT packet (from a client: how it leaves; from the broker: why it closes).
struct DisconnectPacket {
    var reasonCode: MQTTReasonCode = .success
    var properties = MQTTProperties()
}
