/// One thing `HouseService` does to the outside world to carry out an intent.
public enum DeviceCommand: Sendable, Equatable, CustomStringConvertible {
    /// Switch a relay of this node.
    case relay(device: String, RelayRef, DeviceState)
    /// Press a relay of this node for a while.
    case pulse(device: String, RelayRef, Duration)
    /// Publish an MQTT message (a remote device, or a relay owned by another node).
    case publish(device: String, topic: String, payload: String)

    /// The device the command is for.
    public var device: String {
        switch self {
        case .relay(let d, _, _), .pulse(let d, _, _), .publish(let d, _, _): d
        }
    }

    public var description: String {
        switch self {
        case .relay(let d, let r, let s): "relay \(r.node)/\(r.channel) \(s.rawValue) (\(d))"
        case .pulse(let d, let r, let t): "relay \(r.node)/\(r.channel) pulse \(DurationParser.format(t)) (\(d))"
        case .publish(let d, let topic, let payload): "mqtt publish \(topic) \(payload) (\(d))"
        }
    }
}
