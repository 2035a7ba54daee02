import Testing
@testable import HouseMQTT

/// An MQTT 5 broker sends a message once per matching subscription: the subscription
/// identifiers take each copy to its own filter's subscriptions.
@Suite("Routing received messages by subscription identifier")
struct SubscriptionRoutingTests {
    /// A state with subscriptions to `filters` (ids 1, 2, ...), with the options given.
    func state(_ filters: [(String, MQTTSubscribeOptions)], identifiers: Bool = true) -> ClientState {
        var s = ClientState(queueCapacity: 10, random: SystemRandomNumberGenerator())
        s.phase = .connected
        s.identifiersAvailable = identifiers
        for (filter, options) in filters {
            let id = s.makeID()
            let (_, continuation) = AsyncThrowingStream.makeStream(of: MQTTMessage.self, throwing: (any Error).self)
            s.addSubscription(ClientState.Subscription(filter: filter, options: options, continuation: continuation, onMessage: nil), id: id)
        }
        return s
    }

    func ids(_ subscriptions: [ClientState.Subscription], in s: ClientState) -> [UInt64] {
        subscriptions.compactMap { sub in s.subscriptions.first { $0.value.filter == sub.filter && $0.value.options == sub.options }?.key }.sorted()
    }

    @Test func eachCopyReachesItsFiltersSubscriptionsOnly() {
        var s = state([("a/+", MQTTSubscribeOptions()), ("a/#", MQTTSubscribeOptions()), ("a/#", MQTTSubscribeOptions(qos: .exactlyOnce, subscriptionIdentifier: 9))])
        let own = s.assignIdentifier(to: "a/+", requested: nil)
        #expect(own == ClientState.ownIdentifiers.lowerBound)
        #expect(s.assignIdentifier(to: "a/+", requested: nil) == own, "stable for the filter")
        #expect(s.assignIdentifier(to: "a/#", requested: s.requestedIdentifier(for: "a/#")) == 9, "the caller's identifier for the filter")
        #expect(s.subscriptions.values.filter { $0.filter == "a/#" }.allSatisfy { $0.identifiers == [9] })

        #expect(s.receivers(of: "a/x", .identifier(own!)).map(\.filter) == ["a/+"])
        #expect(s.receivers(of: "a/x", .identifier(9)).map(\.filter) == ["a/#", "a/#"])
        #expect(s.receivers(of: "a/x", .identifiers([own!, 9])).count == 3)
        // An identifier it no longer knows, or none: every subscription whose filter matches.
        #expect(s.receivers(of: "a/x", .identifier(12345)).count == 3)
        #expect(s.receivers(of: "a/x", .topic).count == 3)
        #expect(s.receivers(of: "a/x/y", .topic).map(\.filter) == ["a/#", "a/#"])
        #expect(s.receivers(of: "b", .topic).isEmpty)
    }

    /// A second SUBSCRIBE of a filter replaces the broker's subscription: it carries an identifier
    /// of its own, which the first subscription takes on too, while a message with the first
    /// identifier (a retained message the first SUBSCRIBE brought, still on its way) reaches the
    /// first subscription only.
    @Test func aLaterSubscriptionOfAFilterGetsNothingOfAnEarlierSubscribe() {
        var s = state([("a/+", MQTTSubscribeOptions())])
        let first = s.assignIdentifier(to: "a/+", requested: nil, newcomer: 1)!
        let id = s.makeID()
        let (_, continuation) = AsyncThrowingStream.makeStream(of: MQTTMessage.self, throwing: (any Error).self)
        s.addSubscription(ClientState.Subscription(filter: "a/+", options: MQTTSubscribeOptions(), continuation: continuation, onMessage: nil), id: id)
        let second = s.assignIdentifier(to: "a/+", requested: nil, newcomer: id)!
        #expect(second != first)
        #expect(s.subscriptions[1]?.identifiers == [first, second])
        #expect(s.subscriptions[id]?.identifiers == [second])
        #expect(s.receivers(of: "a/x", .identifier(first)).count == 1, "the first SUBSCRIBE's retained message: the first subscription only")
        #expect(s.receivers(of: "a/x", .identifier(first)).first?.identifiers == [first, second])
        #expect(s.receivers(of: "a/x", .identifier(second)).count == 2)
        // A reconnect subscribes the filter again with its latest identifier: both keep it.
        #expect(s.assignIdentifier(to: "a/+", requested: nil) == second)
        #expect(s.subscriptions[id]?.identifiers == [second])
        // Many later SUBSCRIBEs: the first subscription keeps the latest few, and a message with
        // an identifier no subscription keeps reaches every subscription of its topic.
        for _ in 0..<ClientState.identifiersKept + 2 { _ = s.assignIdentifier(to: "a/+", requested: nil, newcomer: id) }
        #expect(s.subscriptions[1]?.identifiers.count == ClientState.identifiersKept)
        #expect(s.receivers(of: "a/x", .identifier(first)).count == 2)
    }

    @Test func withoutIdentifiersEveryMatchingSubscriptionGetsTheMessage() {
        var s = state([("a/+", MQTTSubscribeOptions(subscriptionIdentifier: 4)), ("a/#", MQTTSubscribeOptions())], identifiers: false)
        #expect(s.assignIdentifier(to: "a/+", requested: 4) == nil)
        #expect(s.assignIdentifier(to: "a/#", requested: nil) == nil)
        #expect(s.receivers(of: "a/x", .topic).count == 2)
    }

    @Test func aFilterForgetsItsIdentifierWithItsLastSubscription() {
        var s = state([("a/+", MQTTSubscribeOptions()), ("a/+", MQTTSubscribeOptions())])
        let own = s.assignIdentifier(to: "a/+", requested: nil)
        #expect(s.filterIdentifiers["a/+"] == own)
        _ = s.removeSubscription(1)
        #expect(s.filterIdentifiers["a/+"] == own, "another subscription still uses the filter")
        _ = s.removeSubscription(2)
        #expect(s.filterIdentifiers["a/+"] == nil)
        #expect(s.subscriptions.isEmpty)
    }

    /// Exact filters are found by the topic, wildcard ones by matching; a removed subscription no
    /// longer gets anything, and a filter's last removal takes it out of the index.
    @Test func exactAndWildcardFiltersFindTheirSubscriptionsUntilRemoved() {
        var s = state([("a/b", MQTTSubscribeOptions()), ("a/+", MQTTSubscribeOptions()), ("a/b", MQTTSubscribeOptions()),
                       ("#", MQTTSubscribeOptions()), ("a/c", MQTTSubscribeOptions())], identifiers: false)
        #expect(s.receivers(of: "a/b", .topic).map(\.filter).sorted() == ["#", "a/+", "a/b", "a/b"])
        #expect(s.receivers(of: "a/c", .topic).map(\.filter).sorted() == ["#", "a/+", "a/c"])
        #expect(s.receivers(of: "a/b/c", .topic).map(\.filter) == ["#"])
        _ = s.removeSubscription(1)
        #expect(s.receivers(of: "a/b", .topic).map(\.filter).sorted() == ["#", "a/+", "a/b"], "the other a/b subscription stays")
        _ = s.removeSubscription(3)
        _ = s.removeSubscription(2)
        #expect(s.receivers(of: "a/b", .topic).map(\.filter) == ["#"])
        #expect(s.keysByFilter["a/b"] == nil && s.wildcardFilters == ["#"])
        #expect(s.filterInUse("a/c") && !s.filterInUse("a/+"))
        #expect(s.removeAllSubscriptions().count == 2)
        #expect(s.subscriptions.isEmpty && s.keysByFilter.isEmpty && s.wildcardFilters.isEmpty)
    }

    @Test func subscribeOptionsAreChecked() throws {
        #expect(throws: MQTTError.self) { try MQTTSubscribeOptions(subscriptionIdentifier: 0).validate(filter: "a") }
        #expect(throws: MQTTError.self) {
            try MQTTSubscribeOptions(subscriptionIdentifier: MQTTSubscribeOptions.maximumSubscriptionIdentifier + 1).validate(filter: "a")
        }
        #expect(throws: MQTTError.invalidSubscribeOptions(filter: "$share/g/a", reason: "no-local is not allowed on a shared subscription")) {
            try MQTTSubscribeOptions(noLocal: true).validate(filter: "$share/g/a")
        }
        try MQTTSubscribeOptions(noLocal: true, subscriptionIdentifier: 1).validate(filter: "a/#")
    }
}
