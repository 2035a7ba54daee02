import HouseBroker

extension HouseBroker {
    /// A session (connected, or offline with clean session 0) as seen by the broker.
    public struct ClientInfo: Sendable {
        public let clientID: String
        /// Whether a network connection is attached now.
        public let isConnected: Bool
        /// The user name given at CONNECT, if any.
        public let username: String?
        public let cleanSession: Bool
        /// Keepalive in seconds as asked at CONNECT (0: none).
        public let keepAlive: Int
        /// Topic filters with their granted QoS.
        public let subscriptions: [String: QoS]
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
            keepAlive = session.keepAlive
            subscriptions = session.subscriptions
            inflightCount = session.inflightCount
            queuedCount = session.queuedCount
            droppedCount = session.droppedCount
            remoteAddress = session.remoteAddress
        }
    }
}
