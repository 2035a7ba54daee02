import Logging

extension HouseBroker {
    /// How a broker listens, whom it admits and how much it buffers.
    public struct Configuration: Sendable {
        /// Address to listen on.
        public var host: String
        /// Port to listen on; 0 picks a free port (read it back from `HouseBroker.port`).
        public var port: Int
        /// When set, clients that give a user name must match it (else CONNACK 4).
        public var passwordFile: PasswordFile?
        /// With a password file, whether clients without a user name are still admitted (else CONNACK 5).
        public var allowAnonymous: Bool
        /// When set, publishes and subscriptions are limited to what it grants.
        public var accessControl: AccessControlList?
        /// Unacknowledged QoS 1/2 messages in flight to one client; further messages wait in its queue.
        public var maximumInflightMessages: Int
        /// QoS 1/2 messages waiting for one client (offline session, full in-flight window or slow
        /// socket); beyond this new ones are dropped and counted (mosquitto's `max_queued_messages`).
        public var maximumQueuedMessages: Int
        /// Topic and payload bytes waiting for one client, all QoS levels; beyond this new messages
        /// are dropped and counted. Bounds QoS 0 traffic to a slow online subscriber.
        public var maximumQueuedBytes: Int
        /// Largest accepted packet (remaining length), in bytes; larger packets close the connection.
        public var maximumPacketSize: Int
        /// Connected clients beyond this are refused with CONNACK 3 (server unavailable).
        public var maximumConnections: Int
        /// A connection that sends no CONNECT within this time is closed.
        public var connectTimeout: Duration
        /// How many received PUBLISH messages the inspection API remembers (0 records none).
        public var recordedMessageLimit: Int
        /// Where connects, subscriptions and publishes (debug level) and errors are logged.
        public var logger: Logger

        /// A configuration with mosquitto-like defaults: anonymous access, 20 in flight, 1000 QoS 1/2
        /// messages and 64 MiB queued per client.
        public init(
            host: String = "127.0.0.1",
            port: Int = 1883,
            passwordFile: PasswordFile? = nil,
            allowAnonymous: Bool = false,
            accessControl: AccessControlList? = nil,
            maximumInflightMessages: Int = 20,
            maximumQueuedMessages: Int = 1000,
            maximumQueuedBytes: Int = 64 * 1024 * 1024,
            maximumPacketSize: Int = 16 * 1024 * 1024,
            maximumConnections: Int = 10_000,
            connectTimeout: Duration = .seconds(10),
            recordedMessageLimit: Int = 10_000,
            logger: Logger = Logger(label: "housectl.broker", factory: { _ in SwiftLogNoOpLogHandler() })
        ) {
            self.host = host
            self.port = port
            self.passwordFile = passwordFile
            self.allowAnonymous = allowAnonymous
            self.accessControl = accessControl
            self.maximumInflightMessages = maximumInflightMessages
            self.maximumQueuedMessages = maximumQueuedMessages
            self.maximumQueuedBytes = maximumQueuedBytes
            self.maximumPacketSize = maximumPacketSize
            self.maximumConnections = maximumConnections
            self.connectTimeout = connectTimeout
            self.recordedMessageLimit = recordedMessageLimit
            self.logger = logger
        }
    }
}
