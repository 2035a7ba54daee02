/// The MQTT version a connection speaks, chosen by the protocol level of its CONNECT.
public enum MQTTProtocolVersion: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// MQTT 3.1.1, protocol level 4.
    case v311 = 4
    /// MQTT 5.0, protocol level 5.
    case v5 = 5

    public var description: String { self == .v5 ? "MQTT 5" : "MQTT 3.1.1" }
}
