extension HouseBroker {
    /// One subscription of a session: the QoS granted and the MQTT 5 subscription options (all
    /// off, and no identifier, for an MQTT 3.1.1 client).
    public struct Subscription: Sendable, Hashable {
        /// The maximum QoS of messages delivered through it.
        public var qos: QoS
        /// Messages the client published itself are not delivered through it (MQTT 5).
        public var noLocal: Bool
        /// Messages keep the retain flag they were published with (MQTT 5); otherwise only those
        /// sent because of the subscription have it.
        public var retainAsPublished: Bool
        /// When retained messages are sent for it (MQTT 5).
        public var retainHandling: RetainHandling
        /// The subscription identifier given in SUBSCRIBE (MQTT 5), sent with every message it
        /// delivers.
        public var identifier: Int?

        public init(qos: QoS, noLocal: Bool = false, retainAsPublished: Bool = false,
                    retainHandling: RetainHandling = .onSubscribe, identifier: Int? = nil) {
            self.qos = qos
            self.noLocal = noLocal
            self.retainAsPublished = retainAsPublished
            self.retainHandling = retainHandling
            self.identifier = identifier
        }
    }

    /// When retained messages are sent for a subscription (MQTT 5 section 3.8.3.1).
    public enum RetainHandling: UInt8, Sendable, Hashable {
        /// On every SUBSCRIBE (and always for MQTT 3.1.1).
        case onSubscribe = 0
        /// Only when the subscription did not exist before.
        case onNewSubscription = 1
        /// Never.
        case never = 2
    }
}
