extension HouseBroker {
    /// Counters since the broker was created (HouseBrokerTesting reads them).
    public struct Statistics: Sendable, Equatable {
        /// PUBLISH packets received from clients.
        public var messagesReceived = 0
        /// PUBLISH packets sent to clients (including redeliveries).
        public var messagesSent = 0
        /// Messages dropped because a client's queue was full.
        public var messagesDropped = 0
        /// Messages dropped because their MQTT 5 message expiry interval passed while they waited
        /// (queued for a client, or retained).
        public var messagesExpired = 0
        /// Messages not sent because they were larger than an MQTT 5 client's Maximum Packet Size.
        public var messagesTooLarge = 0
        /// Publishes dropped because the ACL refused them.
        public var publishesDenied = 0
        /// Offline sessions discarded with their queued messages: at the end of their session
        /// expiry interval or `persistentSessionExpiry`, or pushed out by `maximumOfflineSessions`.
        public var sessionsExpired = 0
        /// Connections accepted with CONNACK 0.
        public var connectionsAccepted = 0
        /// Connections refused with a non-zero CONNACK.
        public var connectionsRefused = 0
        /// Connections closed because of malformed or out-of-order packets (MQTT 5: any
        /// DISCONNECT or CONNACK for a broken rule).
        public var protocolErrors = 0
        /// Publishes (and wills) dropped because their topic passes `maximumTopicLevels` or
        /// `maximumTopicLength`.
        public var publishesRefused = 0
        /// Subscriptions refused (SUBACK 0x80) because of a topic or subscription limit.
        public var subscriptionsRefused = 0
        /// Retained messages delivered but not retained because of `maximumRetainedBytes`.
        public var retainedRefused = 0

        /// Estimated memory of all subscriptions now (bounded by `maximumSubscriptionBytes`).
        public var subscriptionBytes = 0
        /// Bytes queued or in flight for all clients now (topic, payload, MQTT 5 properties), and
        /// of MQTT 5 wills waiting for their delay (bounded by `maximumTotalQueuedBytes`).
        public var heldBytes = 0
        /// Bytes of the retained messages now: topic, payload, MQTT 5 properties (bounded by
        /// `maximumRetainedBytes`).
        public var retainedBytes = 0
        /// Sessions kept offline now (bounded by `maximumOfflineSessions`).
        public var offlineSessions = 0
        /// Nodes of the subscription tree now, the root included.
        public var subscriptionTreeNodes = 0
    }
}
