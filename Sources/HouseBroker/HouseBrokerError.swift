/// Everything that can go wrong in the broker: protocol violations by a client (which close only
/// that client's connection), configuration files that cannot be read, and lifecycle misuse.
public enum HouseBrokerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes received are not a well-formed MQTT packet.
    case malformedPacket(String)
    /// The packet is well-formed but not allowed at this point (e.g. a second CONNECT).
    case protocolViolation(String)
    /// An MQTT 5 client broke a rule: it is told `reasonCode` (in CONNACK while connecting, in
    /// DISCONNECT after) and its connection is closed. 0x81 is a malformed packet, 0x82 a protocol
    /// error; others name the rule (0x93 receive maximum exceeded, 0x94 topic alias invalid, 0x95
    /// packet too large, ...).
    case violation(MQTTReasonCode, String)
    /// CONNECT asked for a protocol level other than 4 (MQTT 3.1.1) and 5 (MQTT 5); answered with
    /// CONNACK 1.
    case unacceptableProtocolLevel(name: String, level: UInt8)
    /// A password or ACL file could not be read or parsed.
    case invalidConfigurationFile(path: String, line: Int, message: String)
    /// Binding the listening socket failed.
    case bindFailed(host: String, port: Int, reason: String)
    /// A listener beyond this machine that would admit anyone (no password file, or anonymous
    /// clients allowed): refused at start.
    case unauthenticatedListener(host: String)
    /// The TLS certificate or key could not be loaded.
    case tlsSetup(String)
    /// The operation needs a running broker.
    case notRunning
    /// The operation needs a stopped broker.
    case alreadyRunning
    /// A wait in the test API ran out of time.
    case timedOut(String)

    public var description: String {
        switch self {
        case .malformedPacket(let why): "malformed packet: \(why)"
        case .protocolViolation(let why): "protocol violation: \(why)"
        case .violation(let code, let why): "\(why) (reason code \(code))"
        case .unacceptableProtocolLevel(let name, let level):
            "unacceptable protocol \(name) level \(level) (only MQTT 3.1.1, level 4, and MQTT 5, level 5, are supported)"
        case .invalidConfigurationFile(let path, let line, let message):
            line > 0 ? "\(path):\(line): \(message)" : "\(path): \(message)"
        case .bindFailed(let host, let port, let reason): "cannot listen on \(host):\(port): \(reason)"
        case .unauthenticatedListener(let host):
            "refusing to listen on \(host) without passwords: that address reaches beyond this machine, so every client must log in (give a password file and do not allow anonymous clients), or listen on 127.0.0.1"
        case .tlsSetup(let why): "cannot set up TLS: \(why)"
        case .notRunning: "the broker is not running"
        case .alreadyRunning: "the broker is already running"
        case .timedOut(let what): "timed out waiting for \(what)"
        }
    }
}

extension HouseBrokerError {
    /// The error as an MQTT 5 connection reports it: a malformed packet is reason code 0x81, a
    /// protocol violation 0x82; other errors stay as they are.
    var inMQTT5: HouseBrokerError {
        switch self {
        case .malformedPacket(let why): .violation(.malformedPacket, why)
        case .protocolViolation(let why): .violation(.protocolError, why)
        default: self
        }
    }
}
