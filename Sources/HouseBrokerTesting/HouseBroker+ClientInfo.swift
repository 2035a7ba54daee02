import HouseBroker

extension HouseBroker {
    /// A session (connected, or offline with clean session 0) as seen by the broker.
    public struct ClientInfo: Sendable {
        public let clientID: String
        /// Whether a network connection is attached now.
        public let isConnected: Bool
        /// The user name given at CONNECT, if any.
        public let username: String?
        /// Whether the session ends with its connection (clean session 1, or an MQTT 5 session
        /// expiry interval of 0).
        public let cleanSession: Bool
        /// Seconds the session outlives its connection (0xFFFFFFFF: forever, as for 3.1.1 clean session 0).
        public let sessionExpiryInterval: UInt32
        /// The MQTT version of the client's latest connection.
        public let protocolVersion: MQTTProtocolVersion
        /// Keepalive in seconds as asked at CONNECT, or as capped for MQTT 5 (0: none).
        public let keepAlive: Int
        /// Topic filters with their granted QoS.
        public let subscriptions: [String: QoS]
        /// Topic filters with their granted QoS and MQTT 5 options.
        public let subscriptionOptions: [String: Subscription]
        /// Whether an MQTT 5 will waits for its delay interval.
        public let hasPendingWill: Bool
        /// QoS 1/2 messages sent and not yet fully acknowledged.
        public let inflightCount: Int
        /// Messages waiting to be sent.
        public let queuedCount: Int
        /// Messages dropped for this client because its queue was full.
        public let droppedCount: Int
        /// The peer address, when connected.
        public let remoteAddress: String?

        init(_ session: Session) {
            clientID = session.clientID
            isConnected = session.isConnected
            username = session.username
            cleanSession = session.cleanSession
            sessionExpiryInterval = session.expiryInterval
            protocolVersion = session.protocolVersion
            keepAlive = session.keepAlive
            subscriptions = session.subscriptions.mapValues(\.qos)
            subscriptionOptions = session.subscriptions
            hasPendingWill = session.hasPendingWill
            inflightCount = session.inflightCount
            queuedCount = session.queuedCount
            droppedCount = session.droppedCount
            remoteAddress = session.remoteAddress
        }
    }
}
