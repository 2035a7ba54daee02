/// The MQTT protocol version a client asks for (`MQTTConfiguration.protocolVersion`) or speaks
/// on its current connection (`MQTTClient.protocolVersion`).
public enum MQTTProtocolVersion: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// MQTT 3.1.1 (protocol level 4): no properties, no subscription options, no reason codes.
    case v311
    /// MQTT 5 (protocol level 5): message properties, subscription options, reason codes. A
    /// client configured for it falls back to 3.1.1 with a broker that refuses it.
    case v5

    public var description: String {
        switch self {
        case .v311: "MQTT 3.1.1"
        case .v5: "MQTT 5"
        }
    }
}
