/// Every error the MQTT client reports. Messages name the endpoint (`host:port`), the C call or the
/// topic involved, and the reason; they never contain a password.
public enum MQTTError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The configuration cannot work (bad port, keepalive, unreadable TLS file, ...).
    case invalidConfiguration(String)
    /// A topic name that cannot be published to (empty, wildcards, NUL, too long).
    case invalidTopic(String, reason: String)
    /// A subscription filter that is not valid MQTT (misplaced `#` or `+`, empty, ...).
    case invalidFilter(String, reason: String)
    /// The payload is larger than `MQTTConfiguration.maximumPayloadSize`.
    case payloadTooLarge(topic: String, size: Int, limit: Int)
    /// The password file or environment variable named in the credentials could not be read.
    case credentialsUnavailable(String)
    /// The TCP connection (or name lookup) failed: says which call, host:port and why (errno where set).
    case connectFailed(endpoint: String, reason: String)
    /// No CONNACK arrived within the connect timeout (unreachable host, black-holed packets).
    case connectTimedOut(endpoint: String, after: Duration)
    /// The broker refused the credentials (CONNACK 4 "bad user name or password" or 5 "not authorised").
    case authenticationFailed(endpoint: String, code: Int, reason: String)
    /// The broker refused the connection for another reason (CONNACK 1-3).
    case connectionRefused(endpoint: String, code: Int, reason: String)
    /// The TLS handshake failed (untrusted certificate, hostname mismatch, protocol error).
    case tlsFailed(endpoint: String, reason: String)
    /// An established connection was lost while an operation depended on it.
    case connectionLost(endpoint: String, reason: String)
    /// The broker answered a SUBSCRIBE with the failure code 0x80.
    case subscriptionRejected(filter: String)
    /// The offline queue is full; the message was not queued.
    case offlineQueueFull(capacity: Int)
    /// The client is not connected and the offline queue is disabled.
    case notConnected(endpoint: String)
    /// The client was disconnected by its owner; no more operations are possible.
    case clientClosed
    /// A libmosquitto call failed unexpectedly.
    case operationFailed(call: String, reason: String)

    public var description: String {
        switch self {
        case .invalidConfiguration(let why): return "invalid MQTT configuration: \(why)"
        case .invalidTopic(let topic, let why): return "invalid MQTT topic '\(topic)': \(why)"
        case .invalidFilter(let filter, let why): return "invalid MQTT topic filter '\(filter)': \(why)"
        case .payloadTooLarge(let topic, let size, let limit):
            return "payload for '\(topic)' is \(size) bytes, over the limit of \(limit) bytes"
        case .credentialsUnavailable(let why): return "MQTT credentials unavailable: \(why)"
        case .connectFailed(let endpoint, let why): return "cannot connect to MQTT broker \(endpoint): \(why)"
        case .connectTimedOut(let endpoint, let after):
            return "cannot connect to MQTT broker \(endpoint): no answer within \(after)"
        case .authenticationFailed(let endpoint, let code, let why):
            return "MQTT broker \(endpoint) refused the credentials (CONNACK \(code): \(why))"
        case .connectionRefused(let endpoint, let code, let why):
            return "MQTT broker \(endpoint) refused the connection (CONNACK \(code): \(why))"
        case .tlsFailed(let endpoint, let why): return "TLS handshake with MQTT broker \(endpoint) failed: \(why)"
        case .connectionLost(let endpoint, let why): return "connection to MQTT broker \(endpoint) lost: \(why)"
        case .subscriptionRejected(let filter): return "the broker rejected the subscription to '\(filter)'"
        case .offlineQueueFull(let capacity):
            return "not connected and the offline queue is full (\(capacity) messages); message dropped"
        case .notConnected(let endpoint): return "not connected to MQTT broker \(endpoint) (offline queue disabled)"
        case .clientClosed: return "the MQTT client was disconnected and cannot be used any more"
        case .operationFailed(let call, let why): return "\(call) failed: \(why)"
        }
    }
}
