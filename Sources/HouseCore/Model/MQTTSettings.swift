/// How the controller reaches its MQTT broker.
public struct MQTTSettings: Sendable, Equatable {
    public enum Broker: Sendable, Equatable {
        /// Start our own `HouseBroker` in-process.
        case embedded(host: String, port: Int)
        /// Connect to an external broker (mosquitto, ...).
        case external(host: String, port: Int)
    }

    public struct TLS: Sendable, Equatable {
        public var caFile: String?
        public var certFile: String?
        public var keyFile: String?
        /// Verify the server certificate (on by default).
        public var verify: Bool

        public init(caFile: String? = nil, certFile: String? = nil, keyFile: String? = nil, verify: Bool = true) {
            self.caFile = caFile
            self.certFile = certFile
            self.keyFile = keyFile
            self.verify = verify
        }
    }

    public var broker: Broker
    public var username: String?
    /// File holding the password (never the password itself in the config).
    public var passwordFile: String?
    /// Environment variable holding the password.
    public var passwordEnv: String?
    public var tls: TLS?
    /// Base topic, `house` by default.
    public var baseTopic: String
    /// Home Assistant discovery prefix, `homeassistant` by default; nil disables discovery.
    public var discoveryPrefix: String?
    public var keepalive: Int

    public init(
        broker: Broker = .embedded(host: "127.0.0.1", port: 1883),
        username: String? = nil,
        passwordFile: String? = nil,
        passwordEnv: String? = nil,
        tls: TLS? = nil,
        baseTopic: String = "house",
        discoveryPrefix: String? = "homeassistant",
        keepalive: Int = 30
    ) {
        self.broker = broker
        self.username = username
        self.passwordFile = passwordFile
        self.passwordEnv = passwordEnv
        self.tls = tls
        self.baseTopic = baseTopic
        self.discoveryPrefix = discoveryPrefix
        self.keepalive = keepalive
    }
}
