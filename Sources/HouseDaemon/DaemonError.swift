/// Everything that can go wrong in the daemon's own layer (payloads, persistence, startup).
public enum DaemonError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A message on `topic` could not be understood; `reason` says what was expected.
    case malformedPayload(topic: String, reason: String)
    /// The state database could not be opened or written.
    case database(path: String, reason: String)
    /// Startup could not proceed.
    case startup(String)
    /// The relay bank refused or failed a command.
    case relay(device: String, reason: String)
    /// A file could not be written.
    case file(path: String, reason: String)

    public var description: String {
        switch self {
        case .malformedPayload(let topic, let reason): "malformed payload on \(topic): \(reason)"
        case .database(let path, let reason): "state database \(path): \(reason)"
        case .startup(let reason): reason
        case .relay(let device, let reason): "relay \(device): \(reason)"
        case .file(let path, let reason): "\(path): \(reason)"
        }
    }
}
