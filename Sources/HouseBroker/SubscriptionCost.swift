import MQTTTopics

/// How much memory a subscription is counted as, for the per-client and total subscription bounds.
///
/// An estimate on the high side, made without touching the tree: the filter is kept twice (the
/// session's list and the tree's level keys) and each level may need a tree node with its maps
/// (about 200 bytes measured on 64-bit Linux). Filters that share levels cost less than counted.
enum SubscriptionCost {
    /// Bytes counted for one node of the subscription tree.
    static let perLevel = 200
    /// Bytes counted for the session's entry and the subscriber entry.
    static let perSubscription = 100

    /// The counted bytes of a subscription to `filter`.
    static func of(filter: String) -> Int {
        let bytes = filter.utf8.count
        return perSubscription + 2 * bytes + perLevel * MQTTTopic.levelCount(filter)
    }
}
