/// Whether the broker sends its retained messages when a subscription is made (MQTT 5
/// subscription option; MQTT 3.1.1 always sends them).
public enum MQTTRetainHandling: UInt8, Sendable, Hashable, CaseIterable {
    /// At every subscribe, also when the subscription existed (0, the 3.1.1 behaviour).
    case sendAlways = 0
    /// Only when the subscription did not exist before (1).
    case sendIfNew = 1
    /// Never (2).
    case never = 2
}
