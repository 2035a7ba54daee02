/// How to subscribe: the QoS and, with MQTT 5, the subscription options. On an MQTT 3.1.1
/// connection only `qos` counts; the others are not sent (the broker behaves as with their
/// defaults).
public struct MQTTSubscribeOptions: Sendable, Hashable {
    /// The highest QoS the broker may deliver the subscription's messages with.
    public var qos: MQTTQoS
    /// Do not receive the messages this client publishes itself (MQTT 5).
    public var noLocal: Bool
    /// Deliver messages with the retain flag they were published with, instead of clearing it
    /// on live messages (MQTT 5): a live retained publish then arrives with `retain == true`.
    public var retainAsPublished: Bool
    /// Whether the broker sends its retained messages at subscribe (MQTT 5).
    public var retainHandling: MQTTRetainHandling
    /// A number (1...134_217_727) the broker puts in `subscriptionIdentifiers` of every message
    /// it delivers for this subscription (MQTT 5). Without one the client uses one of its own
    /// (from the upper half of MQTT 5's range, never shown in `subscriptionIdentifiers`): with
    /// them it delivers each copy an MQTT 5 broker sends per matching subscription to the
    /// subscriptions of that filter only.
    public var subscriptionIdentifier: Int?

    /// The largest subscription identifier a caller may choose (half of MQTT 5's 268,435,455;
    /// the client's own are above it).
    public static let maximumSubscriptionIdentifier = 134_217_727

    public init(
        qos: MQTTQoS = .atLeastOnce, noLocal: Bool = false, retainAsPublished: Bool = false,
        retainHandling: MQTTRetainHandling = .sendAlways, subscriptionIdentifier: Int? = nil
    ) {
        self.qos = qos
        self.noLocal = noLocal
        self.retainAsPublished = retainAsPublished
        self.retainHandling = retainHandling
        self.subscriptionIdentifier = subscriptionIdentifier
    }

    /// Throws `invalidSubscribeOptions` for a subscription identifier outside 1...268_435_455
    /// and for no-local on a shared subscription (a protocol error in MQTT 5).
    func validate(filter: String) throws(MQTTError) {
        if noLocal && filter.hasPrefix("$share/") {
            throw .invalidSubscribeOptions(filter: filter, reason: "no-local is not allowed on a shared subscription")
        }
        if let id = subscriptionIdentifier, !(1...Self.maximumSubscriptionIdentifier).contains(id) {
            throw .invalidSubscribeOptions(filter: filter, reason: "the subscription identifier \(id) is outside 1...\(Self.maximumSubscriptionIdentifier)")
        }
    }
}
