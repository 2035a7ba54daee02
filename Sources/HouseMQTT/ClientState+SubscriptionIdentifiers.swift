import MQTTTopics

/// Subscription identifiers on MQTT 5: every filter is subscribed with one (the caller's, or the
/// client's own from the upper half of the range), so that each copy of a message an MQTT 5
/// broker sends per matching subscription reaches the subscriptions of that filter only.
extension ClientState {
    /// The client's own identifiers: 2^27 up to the largest MQTT 5 allows. Callers' ones are below
    /// (`MQTTSubscribeOptions.maximumSubscriptionIdentifier`), and are the only ones a received
    /// message shows in `MQTTPublishProperties.subscriptionIdentifiers`.
    static let ownIdentifiers = (MQTTSubscribeOptions.maximumSubscriptionIdentifier + 1)...268_435_455

    /// How many identifiers a subscription keeps (its own and those of the later SUBSCRIBEs of
    /// its filter): a message with an older one still reaches every subscription of the filter
    /// (`receivers(of:_:)` falls back to the topic).
    static let identifiersKept = 4

    /// The identifier the SUBSCRIBE of `filter` about to be sent carries: nil when the connection
    /// takes none (MQTT 3.1.1, or a broker without them), else `requested` (the latest
    /// subscription's own), for a re-subscribe the filter's earlier one, or a new one of the
    /// client's. `newcomer` is the subscription this SUBSCRIBE is for (nil: a re-subscribe of the
    /// filter's subscriptions after a reconnect): it gets a new identifier, which the filter's
    /// other subscriptions take on too, while a retained message the first SUBSCRIBE brought
    /// (with the first identifier, and maybe still on its way) reaches only those made before.
    /// Recorded on the subscriptions of the filter, for `receivers(of:_:)`.
    mutating func assignIdentifier(to filter: String, requested: Int?, newcomer: UInt64? = nil) -> Int? {
        var identifier: Int?
        if identifiersAvailable {
            if let requested {
                identifier = requested
            } else if newcomer == nil, let earlier = filterIdentifiers[filter] {
                identifier = earlier
            } else {
                identifier = nextOwnIdentifier
                nextOwnIdentifier = nextOwnIdentifier == Self.ownIdentifiers.upperBound ? Self.ownIdentifiers.lowerBound : nextOwnIdentifier + 1
            }
            filterIdentifiers[filter] = identifier
        }
        for key in keysByFilter[filter] ?? [] {
            guard let subscription = subscriptions[key] else { continue }
            guard let identifier else {
                if !subscription.identifiers.isEmpty { subscriptions[key]?.identifiers = [] }
                continue
            }
            if key == newcomer {
                subscriptions[key]?.identifiers = [identifier]
            } else if subscription.identifiers.last != identifier {
                var kept = subscription.identifiers.filter { $0 != identifier }
                kept.append(identifier)
                subscriptions[key]?.identifiers = Array(kept.suffix(Self.identifiersKept))
            }
        }
        return identifier
    }

    /// The identifier the latest subscription of `filter` that asked for one asked for.
    func requestedIdentifier(for filter: String) -> Int? {
        // Keys grow: the last of the filter's is its latest subscription.
        keysByFilter[filter]?.reversed().lazy.compactMap { subscriptions[$0]?.options.subscriptionIdentifier }.first
    }

    /// Up to this many subscriptions a message's are found by matching each (fewer copies than
    /// the lookups of `keysByFilter` cost); above, through `keysByFilter`.
    static let scannedSubscriptions = 4

    /// Adds `subscription` as `id` (ids grow: a filter's keys stay in the order they came).
    mutating func addSubscription(_ subscription: Subscription, id: UInt64) {
        subscriptions[id] = subscription
        if keysByFilter[subscription.filter, default: []].isEmpty, !subscription.isExact {
            wildcardFilters.append(subscription.filter)
        }
        keysByFilter[subscription.filter, default: []].append(id)
    }

    /// Removes subscription `id`, and its filter's identifier once no subscription uses the filter.
    mutating func removeSubscription(_ id: UInt64) -> Subscription? {
        guard let removed = subscriptions.removeValue(forKey: id) else { return nil }
        keysByFilter[removed.filter]?.removeAll { $0 == id }
        if keysByFilter[removed.filter]?.isEmpty == true {
            keysByFilter[removed.filter] = nil
            wildcardFilters.removeAll { $0 == removed.filter }
            filterIdentifiers[removed.filter] = nil
        }
        return removed
    }

    /// Removes every subscription (the client closes) and returns them.
    mutating func removeAllSubscriptions() -> [Subscription] {
        defer {
            subscriptions.removeAll()
            keysByFilter.removeAll()
            wildcardFilters.removeAll()
        }
        return Array(subscriptions.values)
    }

    /// The subscriptions a message to `topic` goes to: those `route` names (by an identifier they
    /// keep) whose filter matches the topic, or, when none (an identifier this client no longer
    /// knows, a message queued for a subscription made without one), every subscription whose
    /// filter matches it.
    func receivers(of topic: String, _ route: DeliveryRoute) -> [Subscription] {
        var matching: [Subscription]
        if subscriptions.count <= Self.scannedSubscriptions {
            matching = subscriptions.values.filter { $0.matches(topic) }
        } else {
            // A topic has no wildcards: it equals only filters without.
            matching = []
            for key in keysByFilter[topic] ?? [] { if let s = subscriptions[key] { matching.append(s) } }
            for filter in wildcardFilters where MQTTTopic.matches(topic: topic, filter: filter) {
                for key in keysByFilter[filter] ?? [] { if let s = subscriptions[key] { matching.append(s) } }
            }
        }
        // One subscription gets it whatever the route says (below: the routed ones, else all).
        if matching.count < 2 { return matching }
        let routed = matching.filter { subscription in
            switch route {
            case .topic: subscription.identifiers.isEmpty
            case .identifier(let id): subscription.identifiers.contains(id)
            case .identifiers(let ids): subscription.identifiers.contains { ids.contains($0) }
            }
        }
        return routed.isEmpty ? matching : routed
    }
}
