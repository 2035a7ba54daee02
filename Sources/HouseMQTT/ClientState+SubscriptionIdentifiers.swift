/// Subscription identifiers on MQTT 5: every filter is subscribed with one (the caller's, or the
/// client's own from the upper half of the range), so that each copy of a message an MQTT 5
/// broker sends per matching subscription reaches the subscriptions of that filter only.
extension ClientState {
    /// The client's own identifiers: 2^27 up to the largest MQTT 5 allows. Callers' ones are below
    /// (`MQTTSubscribeOptions.maximumSubscriptionIdentifier`), and are the only ones a received
    /// message shows in `MQTTPublishProperties.subscriptionIdentifiers`.
    static let ownIdentifiers = (MQTTSubscribeOptions.maximumSubscriptionIdentifier + 1)...268_435_455

    /// The identifier the SUBSCRIBE of `filter` about to be sent carries: nil when the connection
    /// takes none (MQTT 3.1.1, or a broker without them), else `requested` (the latest
    /// subscription's own), the filter's earlier one, or a new one of the client's. Recorded on
    /// every subscription of the filter, for `receivers(of:_:)`.
    mutating func assignIdentifier(to filter: String, requested: Int?) -> Int? {
        var identifier: Int?
        if identifiersAvailable {
            if let requested {
                identifier = requested
            } else if let earlier = filterIdentifiers[filter] {
                identifier = earlier
            } else {
                identifier = nextOwnIdentifier
                nextOwnIdentifier = nextOwnIdentifier == Self.ownIdentifiers.upperBound ? Self.ownIdentifiers.lowerBound : nextOwnIdentifier + 1
            }
            filterIdentifiers[filter] = identifier
        }
        for (key, subscription) in subscriptions where subscription.filter == filter && subscription.identifier != identifier {
            subscriptions[key]?.identifier = identifier
        }
        return identifier
    }

    /// The identifier the latest subscription of `filter` that asked for one asked for.
    func requestedIdentifier(for filter: String) -> Int? {
        subscriptions.filter { $0.value.filter == filter && $0.value.options.subscriptionIdentifier != nil }
            .max { $0.key < $1.key }?.value.options.subscriptionIdentifier
    }

    /// Removes subscription `id`, and its filter's identifier once no subscription uses the filter.
    mutating func removeSubscription(_ id: UInt64) -> Subscription? {
        guard let removed = subscriptions.removeValue(forKey: id) else { return nil }
        if !filterInUse(removed.filter) { filterIdentifiers[removed.filter] = nil }
        return removed
    }

    /// The subscriptions a message to `topic` goes to: those `route` names whose filter matches
    /// the topic, or, when none (an identifier this client no longer knows, a message queued
    /// for a subscription made without one), every subscription whose filter matches it.
    func receivers(of topic: String, _ route: DeliveryRoute) -> [Subscription] {
        let routed = subscriptions.values.filter { subscription in
            switch route {
            case .topic: subscription.identifier == nil && subscription.matches(topic)
            case .identifier(let id): subscription.identifier == id && subscription.matches(topic)
            case .identifiers(let ids): subscription.identifier.map { ids.contains($0) } == true && subscription.matches(topic)
            }
        }
        return routed.isEmpty ? subscriptions.values.filter { $0.matches(topic) } : routed
    }
}
