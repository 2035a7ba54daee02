/// What a CONNACK's properties tell the client.
struct ConnackProperties: Sendable, Hashable {
    /// The broker's Receive Maximum; nil when absent (65,535).
    var receiveMaximum: Int?
    /// Why it refused, in the broker's words.
    var reasonString: String?
    /// Whether the broker takes subscription identifiers (true unless it says 0).
    var subscriptionIdentifiersAvailable = true
}
