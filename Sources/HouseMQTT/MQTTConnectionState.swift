/// The client's connection as seen through `MQTTClient.connectionStates()`.
public enum MQTTConnectionState: Sendable, Hashable, CustomStringConvertible {
    /// Created, never asked to connect.
    case idle
    /// A connect attempt is under way (TCP, TLS, waiting for CONNACK).
    case connecting
    /// CONNACK accepted; subscriptions re-sent, birth published, offline queue flushed.
    case connected(sessionPresent: Bool)
    /// Not connected; `error` says why (nil after an orderly disconnect). A reconnect follows
    /// unless the client is being closed.
    case disconnected(MQTTError?)
    /// `disconnect()` finished; the client is done.
    case closed

    /// Whether this is `.connected`.
    public var isConnected: Bool { if case .connected = self { return true } else { return false } }

    public var description: String {
        switch self {
        case .idle: return "idle"
        case .connecting: return "connecting"
        case .connected(let present): return "connected\(present ? " (session present)" : "")"
        case .disconnected(let error): return "disconnected" + (error.map { ": \($0)" } ?? "")
        case .closed: return "closed"
        }
    }
}
