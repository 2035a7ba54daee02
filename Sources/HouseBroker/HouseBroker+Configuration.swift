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
        /// Bytes held for all clients together (queued and in flight, topic and payload); beyond
        /// this new messages for any client are dropped and counted.
        public var maximumTotalQueuedBytes: Int
        /// How long an MQTT 3.1.1 session of clean session 0 (which that protocol keeps forever)
        /// outlives its connection: after this long offline it is discarded with its subscriptions
        /// and queued messages (mosquitto's `persistent_client_expiration`); nil keeps it until the
        /// client returns or `maximumOfflineSessions` pushes it out. MQTT 5 sessions end after
        /// their own session expiry interval instead (0xFFFFFFFF: never, bounded only by
        /// `maximumOfflineSessions`).
        public var persistentSessionExpiry: Duration?
        /// Sessions kept for clients that are offline (3.1.1 clean session 0, or an MQTT 5 session
        /// expiry interval above 0); when one more goes offline, the one offline longest is
        /// discarded with its subscriptions and queued messages. 0 keeps none.
        public var maximumOfflineSessions: Int
        /// Largest accepted packet (remaining length), in bytes; larger packets close the connection.
        public var maximumPacketSize: Int
        /// Levels (`/`-separated parts) a topic name or filter may have (mosquitto's limit is 200).
        /// A deeper subscription gets SUBACK 0x80; a deeper PUBLISH is acknowledged and dropped.
        public var maximumTopicLevels: Int
        /// UTF-8 bytes a topic name or filter may have; longer ones are refused like deeper ones.
        public var maximumTopicLength: Int
        /// Subscriptions one client may hold; a further new filter gets SUBACK 0x80.
        public var maximumSubscriptionsPerClient: Int
        /// Estimated memory of one client's subscriptions (see `SubscriptionCost`); a new filter
        /// that would pass it gets SUBACK 0x80.
        public var maximumSubscriptionBytesPerClient: Int
        /// Estimated memory of all clients' subscriptions together; likewise.
        public var maximumSubscriptionBytes: Int
        /// Topic and payload bytes of all retained messages; a retained message that would pass it
        /// is delivered but not retained (logged and counted).
        public var maximumRetainedBytes: Int
        /// Connected clients beyond this are refused with CONNACK 3 (server unavailable).
        public var maximumConnections: Int
        /// Connections that have not sent their CONNECT yet; a further one is closed at once.
        public var maximumPendingConnections: Int
        /// MQTT 5: QoS 2 messages a client may have sent and not yet released with PUBREL (its
        /// Receive Maximum, told in CONNACK; QoS 1 messages are acknowledged at once). One more
        /// gets DISCONNECT 0x93 (receive maximum exceeded). 1...65,535.
        public var receiveMaximum: Int
        /// MQTT 5: topic aliases per connection and direction: the client may set aliases
        /// 1...this (told in CONNACK; beyond it DISCONNECT 0x94), and the broker uses at most this
        /// many of those the client accepts. 0 turns topic aliases off. At most 65,535.
        public var topicAliasMaximum: Int
        /// MQTT 5: the longest keepalive, in seconds; a client asking for more (or for none) is
        /// told this one in CONNACK (Server Keep Alive). 65,535 caps nothing. MQTT 3.1.1 clients
        /// keep theirs (3.1.1 has no way to tell them).
        public var maximumKeepAlive: Int
        /// A connection that sends no CONNECT within this time is closed.
        public var connectTimeout: Duration
        /// How many received PUBLISH messages the inspection API remembers (0 records none).
        public var recordedMessageLimit: Int
        /// Where connects, subscriptions and publishes (debug level) and errors are logged.
        public var logger: Logger
        /// When set, the listener speaks TLS only (MQTT over TLS, port 8883 by convention).
        public var tls: TLS?
        /// Also listen on 127.0.0.1 at this port, without TLS, for this machine's own clients (as
        /// mosquitto's `listener 1883 127.0.0.1` beside a TLS listener). Same users and ACL.
        public var loopbackPort: Int?

        /// The broker's certificate (PEM, with its chain) and private key (PEM): the files
        /// deploy/mosquitto/make-certs.sh makes for mosquitto serve here too.
        public struct TLS: Sendable, Equatable {
            public var certificateFile: String
            public var keyFile: String

            public init(certificateFile: String, keyFile: String) {
                self.certificateFile = certificateFile
                self.keyFile = keyFile
            }
        }

        /// Whether `host` is only reachable from this machine (127.0.0.0/8, ::1, localhost).
        public static func isLoopback(_ host: String) -> Bool {
            let h = host.lowercased()
            return h == "localhost" || h == "::1" || h.hasPrefix("127.")
        }

        /// A configuration with mosquitto-like defaults: anonymous access, 20 in flight, 1000 QoS 1/2
        /// messages and 64 MiB queued per client (128 MiB for all), offline 3.1.1 persistent
        /// sessions kept 30 days and at most 1000 offline sessions, topics of at most 200 levels and
        /// 4096 bytes, 10,000 subscriptions and 4 MiB of subscription state per client (64 MiB for
        /// all), 64 MiB of retained messages; for MQTT 5 clients a receive maximum of 20 and 10
        /// topic aliases. docs/BROKER.md lists every bound.
        public init(
            host: String = "127.0.0.1",
            port: Int = 1883,
            passwordFile: PasswordFile? = nil,
            allowAnonymous: Bool = false,
            accessControl: AccessControlList? = nil,
            maximumInflightMessages: Int = 20,
            maximumQueuedMessages: Int = 1000,
            maximumQueuedBytes: Int = 64 * 1024 * 1024,
            maximumTotalQueuedBytes: Int = 128 * 1024 * 1024,
            persistentSessionExpiry: Duration? = .seconds(30 * 24 * 3600),
            maximumOfflineSessions: Int = 1000,
            maximumPacketSize: Int = 16 * 1024 * 1024,
            maximumTopicLevels: Int = 200,
            maximumTopicLength: Int = 4096,
            maximumSubscriptionsPerClient: Int = 10_000,
            maximumSubscriptionBytesPerClient: Int = 4 * 1024 * 1024,
            maximumSubscriptionBytes: Int = 64 * 1024 * 1024,
            maximumRetainedBytes: Int = 64 * 1024 * 1024,
            maximumConnections: Int = 10_000,
            maximumPendingConnections: Int = 1000,
            receiveMaximum: Int = 20,
            topicAliasMaximum: Int = 10,
            maximumKeepAlive: Int = 65_535,
            connectTimeout: Duration = .seconds(10),
            recordedMessageLimit: Int = 10_000,
            logger: Logger = Logger(label: "housectl.broker", factory: { _ in SwiftLogNoOpLogHandler() }),
            tls: TLS? = nil
        ) {
            self.host = host
            self.port = port
            self.passwordFile = passwordFile
            self.allowAnonymous = allowAnonymous
            self.accessControl = accessControl
            self.maximumInflightMessages = maximumInflightMessages
            self.maximumQueuedMessages = maximumQueuedMessages
            self.maximumQueuedBytes = maximumQueuedBytes
            self.maximumTotalQueuedBytes = maximumTotalQueuedBytes
            self.persistentSessionExpiry = persistentSessionExpiry
            self.maximumOfflineSessions = maximumOfflineSessions
            self.maximumPacketSize = maximumPacketSize
            self.maximumTopicLevels = maximumTopicLevels
            self.maximumTopicLength = maximumTopicLength
            self.maximumSubscriptionsPerClient = maximumSubscriptionsPerClient
            self.maximumSubscriptionBytesPerClient = maximumSubscriptionBytesPerClient
            self.maximumSubscriptionBytes = maximumSubscriptionBytes
            self.maximumRetainedBytes = maximumRetainedBytes
            self.maximumConnections = maximumConnections
            self.maximumPendingConnections = maximumPendingConnections
            self.receiveMaximum = receiveMaximum
            self.topicAliasMaximum = topicAliasMaximum
            self.maximumKeepAlive = maximumKeepAlive
            self.connectTimeout = connectTimeout
            self.recordedMessageLimit = recordedMessageLimit
            self.logger = logger
            self.tls = tls
        }
    }
}
