/// Which of the client's subscriptions a received message is for, from the subscription
/// identifiers the broker put in it. An MQTT 5 broker sends a message once per matching
/// subscription (each copy with that subscription's identifier), where 3.1.1 sends it once:
/// without the identifiers, overlapping subscriptions would each get every copy.
enum DeliveryRoute: Sendable, Hashable {
    /// No identifier (every 3.1.1 message): the subscriptions without an identifier whose filter
    /// matches the topic.
    case topic
    /// The subscriptions whose filter was subscribed with this identifier.
    case identifier(Int)
    /// The subscriptions whose filter was subscribed with one of these identifiers.
    case identifiers([Int])
}
