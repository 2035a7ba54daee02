/// MQTT quality of service levels.
public enum MQTTQoS: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// Fire and forget: delivered at most once (QoS 0).
    case atMostOnce = 0
    /// Acknowledged delivery: delivered at least once (QoS 1).
    case atLeastOnce = 1
    /// Assured delivery: delivered exactly once (QoS 2).
    case exactlyOnce = 2

    public static func < (a: MQTTQoS, b: MQTTQoS) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "QoS \(rawValue)" }
}
