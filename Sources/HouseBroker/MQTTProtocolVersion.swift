/// The MQTT version a connection speaks, chosen by the protocol level of its CONNECT.
public enum MQTTProtocolVersion: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// MQTT 3.1 (protocol name `MQIsdp`, level 3): spoken as 3.1.1, but for its CONNACK, whose
    /// first byte has no session-present flag, and a client identifier it must give.
    case v31 = 3
    /// MQTT 3.1.1, protocol level 4.
    case v311 = 4
    /// MQTT 5.0, protocol level 5.
    case v5 = 5

    public var description: String {
        switch self {
        case .v31: "MQTT 3.1"
        case .v311: "MQTT 3.1.1"
        case .v5: "MQTT 5"
        }
    }
}
