import NIOCore

/// An MQTT 3.1.1 control packet as the broker sees it (both directions).
enum MQTTPacket {
    case connect(ConnectPacket)
    case connack(sessionPresent: Bool, returnCode: HouseBroker.ConnectReturnCode)
    case publish(PublishPacket)
    case puback(UInt16)
    case pubrec(UInt16)
    case pubrel(UInt16)
    case pubcomp(UInt16)
    case subscribe(packetID: UInt16, filters: [(filter: String, qos: UInt8)])
    case suback(packetID: UInt16, codes: [UInt8])
    case unsubscribe(packetID: UInt16, filters: [String])
    case unsuback(UInt16)
    case pingreq
    case pingresp
    case disconnect

    /// A short name for logs.
    var name: String {
        switch self {
        case .connect: "CONNECT"
        case .connack: "CONNACK"
        case .publish: "PUBLISH"
        case .puback: "PUBACK"
        case .pubrec: "PUBREC"
        case .pubrel: "PUBREL"
        case .pubcomp: "PUBCOMP"
        case .subscribe: "SUBSCRIBE"
        case .suback: "SUBACK"
        case .unsubscribe: "UNSUBSCRIBE"
        case .unsuback: "UNSUBACK"
        case .pingreq: "PINGREQ"
        case .pingresp: "PINGRESP"
        case .disconnect: "DISCONNECT"
        }
    }
}

/// The variable header and payload of a CONNECT packet.
struct ConnectPacket {
    var clientID: String
    var cleanSession: Bool
    var keepAlive: UInt16
    var will: WillMessage?
    var username: String?
    var password: [UInt8]?
}

/// The will message carried by CONNECT.
struct WillMessage {
    var topic: String
    var payload: ByteBuffer
    var qos: HouseBroker.QoS
    var retain: Bool
}

/// A PUBLISH packet.
struct PublishPacket {
    var topic: String
    var payload: ByteBuffer
    var qos: HouseBroker.QoS
    var retain: Bool
    var dup: Bool
    /// Zero for QoS 0.
    var packetID: UInt16
}
