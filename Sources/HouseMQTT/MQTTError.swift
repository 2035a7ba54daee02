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
    /// The broker refused the credentials: MQTT 3.1.1 CONNACK 4 "bad user name or password" or 5
    /// "not authorised"; MQTT 5 reason code 0x86, 0x87 or 0x8C (`code` is the reason code,
    /// `reason` reads "not authorized (0x87)").
    case authenticationFailed(endpoint: String, code: Int, reason: String)
    /// The broker refused the connection for another reason: MQTT 3.1.1 CONNACK 1-3, or an MQTT 5
    /// reason code (`code`, with `reason` as "server busy (0x89)").
    case connectionRefused(endpoint: String, code: Int, reason: String)
    /// The TLS handshake failed (untrusted certificate, hostname mismatch, protocol error).
    case tlsFailed(endpoint: String, reason: String)
    /// An established connection was lost while an operation depended on it.
    case connectionLost(endpoint: String, reason: String)
    /// The broker closed an MQTT 5 connection with a DISCONNECT and this reason code (session
    /// taken over, server shutting down, ...). The client reconnects as after any loss.
    case disconnectedByBroker(endpoint: String, reason: MQTTReasonCode)
    /// The broker answered a SUBSCRIBE with a failure: 0x80 in MQTT 3.1.1 (`.unspecifiedError`),
    /// the reason code in MQTT 5 (e.g. `.notAuthorized` for a filter its ACL denies).
    case subscriptionRejected(filter: String, reason: MQTTReasonCode)
    /// The broker answered a QoS 1/2 publish with a failure reason code (MQTT 5: 0x87 not
    /// authorized by its ACL, 0x97 quota exceeded, ...): it did not take the message.
    case publishRefused(reason: MQTTReasonCode)
    /// A message property that cannot be sent (see `MQTTPublishProperties`).
    case invalidProperty(topic: String, property: String, reason: String)
    /// Subscription options that cannot be sent (see `MQTTSubscribeOptions`).
    case invalidSubscribeOptions(filter: String, reason: String)
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
            return "MQTT broker \(endpoint) refused the credentials (CONNACK \(Self.connack(code, why)))"
        case .connectionRefused(let endpoint, let code, let why):
            return "MQTT broker \(endpoint) refused the connection (CONNACK \(Self.connack(code, why)))"
        case .tlsFailed(let endpoint, let why): return "TLS handshake with MQTT broker \(endpoint) failed: \(why)"
        case .connectionLost(let endpoint, let why): return "connection to MQTT broker \(endpoint) lost: \(why)"
        case .disconnectedByBroker(let endpoint, let reason): return "MQTT broker \(endpoint) closed the connection: \(reason)"
        case .subscriptionRejected(let filter, let reason): return "the broker rejected the subscription to '\(filter)': \(reason)"
        case .publishRefused(let reason): return "the broker refused the message: \(reason)"
        case .invalidProperty(let topic, let property, let why): return "invalid MQTT 5 \(property) for '\(topic)': \(why)"
        case .invalidSubscribeOptions(let filter, let why): return "invalid subscribe options for '\(filter)': \(why)"
        case .offlineQueueFull(let capacity):
            return "not connected and the offline queue is full (\(capacity) messages); message dropped"
        case .notConnected(let endpoint): return "not connected to MQTT broker \(endpoint) (offline queue disabled)"
        case .clientClosed: return "the MQTT client was disconnected and cannot be used any more"
        case .operationFailed(let call, let why): return "\(call) failed: \(why)"
        }
    }

    /// "5: not authorised" for an MQTT 3.1.1 code; the reason alone ("not authorized (0x87)") for
    /// an MQTT 5 one, which already names its code.
    private static func connack(_ code: Int, _ reason: String) -> String {
        code >= 0x80 ? reason : "\(code): \(reason)"
    }
}
