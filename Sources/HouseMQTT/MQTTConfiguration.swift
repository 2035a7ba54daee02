import Foundation

/// Everything `MQTTClient` needs to know to connect and stay connected.
public struct MQTTConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// Broker host name or address.
    public var host: String
    /// Broker TCP port (1883, or 8883 for TLS by convention).
    public var port: Int
    /// MQTT client identifier; must be unique per broker.
    public var clientID: String
    /// Start a new session on each connect (true) or resume the broker's stored one (false).
    /// With MQTT 5: clean start, and a session that never expires when false (what 3.1.1's
    /// persistent session is).
    public var cleanSession: Bool
    /// Keepalive interval (whole seconds, 0 disables, otherwise at least 5 s).
    public var keepAlive: Duration
    /// User name and password source, if the broker requires them.
    public var credentials: MQTTCredentials?
    /// TLS settings; nil for plain TCP.
    public var tls: MQTTTLSConfiguration?
    /// Published by the broker when this client disappears without a DISCONNECT. Its
    /// `properties` go with it on MQTT 5 (message expiry, content type, user properties, ...).
    public var lastWill: MQTTMessage?
    /// MQTT 5: seconds the broker waits before it publishes the last will; a reconnect within
    /// them (to a session that has not ended: see `cleanSession`) cancels it. With a clean
    /// session the session ends at once and so does the wait. Ignored on MQTT 3.1.1.
    public var lastWillDelayInterval: UInt32?
    /// Published after every successful connect (e.g. retained `online` on the LWT topic).
    public var birthMessage: MQTTMessage?
    /// How long a connect attempt may take until CONNACK before it counts as failed.
    public var connectTimeout: Duration
    /// Backoff between reconnect attempts.
    public var reconnect: MQTTReconnectPolicy
    /// Most messages held while disconnected; 0 makes publishing while disconnected an error.
    public var offlineQueueCapacity: Int
    /// Default time to live of a queued message (nil: queued messages never expire).
    public var offlineMessageTimeToLive: Duration?
    /// Largest payload `publish` accepts, in bytes.
    public var maximumPayloadSize: Int
    /// What the kernel may hold of the connection's incoming bytes (`SO_RCVBUF`, set at every
    /// connect); nil leaves the system's, which grows with the traffic. A small one keeps a
    /// broker that the client cannot keep up with from sending far ahead.
    public var receiveBufferSize: Int? = nil
    /// Most QoS 1/2 messages handed to libmosquitto and not yet acknowledged by the broker.
    /// Further messages (of any QoS, to keep their order) wait in the client, in order, and go
    /// out as acknowledgements come: libmosquitto walks its whole list of unacknowledged
    /// messages at every publish, so an unbounded list makes a flood slower and slower.
    /// With MQTT 5, the broker's receive maximum (from its CONNACK) lowers it for that connection.
    public var maximumInFlight: Int
    /// The protocol version to connect with. `.v5` falls back to 3.1.1, with a warning in the
    /// log, when the broker refuses MQTT 5 as an unsupported protocol version (CONNACK 1 from a
    /// 3.1.1 broker), and stays with 3.1.1 for this client's later reconnects;
    /// `MQTTClient.protocolVersion` tells which one the connection speaks.
    public var protocolVersion: MQTTProtocolVersion

    public init(
        host: String = "127.0.0.1",
        port: Int = 1883,
        clientID: String = MQTTConfiguration.randomClientID(),
        cleanSession: Bool = true,
        keepAlive: Duration = .seconds(30),
        credentials: MQTTCredentials? = nil,
        tls: MQTTTLSConfiguration? = nil,
        lastWill: MQTTMessage? = nil,
        birthMessage: MQTTMessage? = nil,
        connectTimeout: Duration = .seconds(10),
        reconnect: MQTTReconnectPolicy = MQTTReconnectPolicy(),
        offlineQueueCapacity: Int = 1000,
        offlineMessageTimeToLive: Duration? = .seconds(300),
        maximumPayloadSize: Int = 1 << 20,
        maximumInFlight: Int = 100,
        protocolVersion: MQTTProtocolVersion = .v5,
        lastWillDelayInterval: UInt32? = nil
    ) {
        self.host = host
        self.port = port
        self.clientID = clientID
        self.cleanSession = cleanSession
        self.keepAlive = keepAlive
        self.credentials = credentials
        self.tls = tls
        self.lastWill = lastWill
        self.birthMessage = birthMessage
        self.connectTimeout = connectTimeout
        self.reconnect = reconnect
        self.offlineQueueCapacity = offlineQueueCapacity
        self.offlineMessageTimeToLive = offlineMessageTimeToLive
        self.maximumPayloadSize = maximumPayloadSize
        self.maximumInFlight = maximumInFlight
        self.protocolVersion = protocolVersion
        self.lastWillDelayInterval = lastWillDelayInterval
    }

    /// `housectl-` followed by 12 random hex digits.
    public static func randomClientID() -> String {
        "housectl-" + String(UInt64.random(in: 0..<(1 << 48)), radix: 16)
    }

    /// `host:port`, with brackets around IPv6 literals.
    public var endpoint: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Host, port, client id, credentials source and TLS; never the password itself.
    public var description: String {
        var parts = ["mqtt\(tls == nil ? "" : "s")://\(endpoint)", "client id \(clientID)"]
        if let credentials { parts.append(credentials.description) }
        if let tls { parts.append(tls.description) }
        return parts.joined(separator: ", ")
    }

    /// Keepalive in the whole seconds libmosquitto takes.
    var keepAliveSeconds: Int32 { Int32(clamping: keepAlive.components.seconds) }

    /// Throws `MQTTError.invalidConfiguration` (or a topic error) describing the first problem.
    public func validate() throws {
        if host.isEmpty { throw MQTTError.invalidConfiguration("the broker host is empty") }
        if !(1...65_535).contains(port) { throw MQTTError.invalidConfiguration("port \(port) is outside 1...65535") }
        if clientID.isEmpty && !cleanSession {
            throw MQTTError.invalidConfiguration("an empty client id requires a clean session")
        }
        if clientID.utf8.count > 65_535 { throw MQTTError.invalidConfiguration("the client id is too long") }
        let keepalive = keepAlive.components.seconds
        if keepAlive < .zero || (keepalive != 0 && keepalive < 5) || keepalive > 65_535 {
            throw MQTTError.invalidConfiguration("keepalive must be 0 or 5...65535 seconds, got \(keepAlive)")
        }
        if connectTimeout <= .zero { throw MQTTError.invalidConfiguration("the connect timeout must be positive") }
        if maximumInFlight < 1 { throw MQTTError.invalidConfiguration("the in-flight window must be at least 1 message") }
        if offlineQueueCapacity < 0 { throw MQTTError.invalidConfiguration("the offline queue capacity must be >= 0") }
        if maximumPayloadSize < 0 || maximumPayloadSize > 268_435_455 {
            throw MQTTError.invalidConfiguration("maximum payload size must be within 0...268435455 bytes")
        }
        try reconnect.validate()
        if let credentials, credentials.username.isEmpty {
            throw MQTTError.invalidConfiguration("the user name is empty")
        }
        if let tls {
            if (tls.certificateFile == nil) != (tls.keyFile == nil) {
                throw MQTTError.invalidConfiguration("TLS client certificate and key must be given together")
            }
            for path in [tls.caFile, tls.certificateFile, tls.keyFile].compactMap({ $0 })
            where !FileManager.default.isReadableFile(atPath: path) {
                throw MQTTError.invalidConfiguration("TLS file \(path) is not readable")
            }
        }
        for message in [lastWill, birthMessage].compactMap({ $0 }) {
            try MQTTError.checkTopicName(message.topic)
            if message.payload.count > maximumPayloadSize {
                throw MQTTError.payloadTooLarge(topic: message.topic, size: message.payload.count, limit: maximumPayloadSize)
            }
            if message.hasProperties { try message.properties.validate(topic: message.topic, payload: message.payload) }
        }
        if lastWillDelayInterval != nil && lastWill == nil {
            throw MQTTError.invalidConfiguration("a last will delay interval needs a last will")
        }
    }
}
