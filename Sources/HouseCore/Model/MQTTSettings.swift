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

    /// What guards the embedded broker when several Pis share it (`mqtt.embedded`): its users,
    /// its ACL, its TLS certificate. Without it the embedded broker admits anyone and listens on
    /// loopback only.
    public struct EmbeddedListener: Sendable, Equatable {
        /// `user:password` or `user:$sha256$SALT$HEX` lines (docs/BROKER.md).
        public var passwordFile: String
        public var aclFile: String?
        /// The broker's certificate and key (PEM): with them the listener speaks TLS only.
        public var certFile: String?
        public var keyFile: String?
        /// With TLS, the plain port on 127.0.0.1 for this machine's own clients (the controller, the CLI).
        public var localPort: Int

        public init(passwordFile: String, aclFile: String? = nil, certFile: String? = nil, keyFile: String? = nil, localPort: Int = 1883) {
            self.passwordFile = passwordFile
            self.aclFile = aclFile
            self.certFile = certFile
            self.keyFile = keyFile
            self.localPort = localPort
        }

        public var tls: Bool { certFile != nil }
    }

    public var broker: Broker
    /// The embedded broker's guard (see `EmbeddedListener`).
    public var embedded: EmbeddedListener?
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
    /// The MQTT version the controller and the command line speak (`protocol: 5` or `3.1.1`):
    /// MQTT 5 by default, falling back to 3.1.1 (with a log line) with a broker that refuses it.
    public var protocolVersion: ProtocolVersion = .v5

    /// `mqtt.protocol`.
    public enum ProtocolVersion: String, Sendable, Equatable, CaseIterable {
        case v5 = "5"
        case v311 = "3.1.1"
    }

    public init(
        broker: Broker = .embedded(host: "127.0.0.1", port: 1883),
        embedded: EmbeddedListener? = nil,
        username: String? = nil,
        passwordFile: String? = nil,
        passwordEnv: String? = nil,
        tls: TLS? = nil,
        baseTopic: String = "house",
        discoveryPrefix: String? = "homeassistant",
        keepalive: Int = 30
    ) {
        self.broker = broker
        self.embedded = embedded
        self.username = username
        self.passwordFile = passwordFile
        self.passwordEnv = passwordEnv
        self.tls = tls
        self.baseTopic = baseTopic
        self.discoveryPrefix = discoveryPrefix
        self.keepalive = keepalive
    }
}

extension MQTTSettings {
    /// Where this machine's own clients (the controller, the CLI) reach the broker: an external
    /// broker where configured; the embedded one on its address (127.0.0.1 for a wildcard
    /// address), or on its plain loopback port when its listener speaks TLS.
    public var localEndpoint: (host: String, port: Int) {
        switch broker {
        case .external(let host, let port):
            return (host, port)
        case .embedded(let host, let port):
            if let embedded, embedded.tls { return ("127.0.0.1", embedded.localPort) }
            return (host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host, port)
        }
    }
}
