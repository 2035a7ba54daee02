/// Why the engine could not carry out a command; shown to the user in words.
public enum HouseEngineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A relay command on a node without relays.
    case noRelays(node: NodeID)
    /// A relay refused or failed the command.
    case command(String, reason: String)
    /// The node that owns the device's relay is offline.
    case nodeOffline(node: NodeID, device: DeviceID)

    public var description: String {
        switch self {
        case .noRelays(let node): "there are no relays to switch on this node (\(node)); is housectl serve running there?"
        case .command(let c, let reason): "\(c) failed: \(reason)"
        case .nodeOffline(let node, let device):
            "\(device) is on node \(node), which is offline, so it was not switched; is housectl serve running on \(node)?"
        }
    }
}
