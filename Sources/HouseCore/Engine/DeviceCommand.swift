/// One thing `HouseService` does to the outside world to carry out an intent.
public enum DeviceCommand: Sendable, Equatable, CustomStringConvertible {
    /// Switch a relay of this node.
    case relay(device: DeviceID, RelayRef, DeviceState)
    /// Press a relay of this node for a while.
    case pulse(device: DeviceID, RelayRef, Duration)
    /// Publish an MQTT message (a remote device, or a relay owned by another node); `state` is
    /// the device's state once it is done (nil for a pulse, which ends where it began).
    case publish(device: DeviceID, topic: String, payload: String, state: DeviceState?)

    /// The device the command is for.
    public var device: DeviceID {
        switch self {
        case .relay(let d, _, _), .pulse(let d, _, _), .publish(let d, _, _, _): d
        }
    }

    /// The state the command leaves its device in; nil for a pulse.
    public var resultingState: DeviceState? {
        switch self {
        case .relay(_, _, let s): s
        case .pulse: nil
        case .publish(_, _, _, let s): s
        }
    }

    public var description: String {
        switch self {
        case .relay(let d, let r, let s): "relay \(r.node)/\(r.channel) \(s.rawValue) (\(d))"
        case .pulse(let d, let r, let t): "relay \(r.node)/\(r.channel) pulse \(DurationParser.format(t)) (\(d))"
        case .publish(let d, let topic, let payload, _): "mqtt publish \(topic) \(payload) (\(d))"
        }
    }
}
