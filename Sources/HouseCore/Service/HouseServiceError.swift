/// Why `HouseService` could not carry out a command; shown to the user in words.
public enum HouseServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A relay command on a node without a relay driver.
    case noRelays(node: NodeID)
    /// An MQTT command without a broker connection.
    case noMQTT(topic: String)
    /// A driver or publisher failed.
    case command(String, reason: String)
    /// The node that owns the device's relay is offline.
    case nodeOffline(node: NodeID, device: DeviceID)

    public var description: String {
        switch self {
        case .noRelays(let node): "there are no relays to switch on this node (\(node)); is housectl serve running there?"
        case .noMQTT(let topic): "there is no MQTT connection to publish \(topic)."
        case .command(let c, let reason): "\(c) failed: \(reason)"
        case .nodeOffline(let node, let device):
            "\(device) is on node \(node), which is offline, so it was not switched; is housectl serve running on \(node)?"
        }
    }
}
