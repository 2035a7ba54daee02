import MQTTTopics

/// Subscriptions indexed by topic level, so routing a message costs the depth of its topic,
/// not the number of subscriptions.
///
/// The nodes live in one flat array and refer to each other by index: every walk (insert, remove,
/// match) is a loop with an explicit stack, and freeing the tree frees an array, so no depth a
/// client chooses can overflow the thread's stack. Removed nodes are recycled.
///
/// A shared subscription (`$share/NAME/filter`) lives at the node of its filter, in the group of
/// its share name; a matching message goes to one member of each group, in turn.
struct SubscriptionTree {
    private struct Node {
        var parent: Int
        /// This node's level in its parent's `children` (empty for the root).
        var level: Substring
        var children: [Substring: Int] = [:]
        var subscribers: [String: HouseBroker.Subscription] = [:]
        /// Shared subscriptions ending here, by share name.
        var shared: [String: SharedGroup] = [:]
        var isEmpty: Bool { children.isEmpty && subscribers.isEmpty && shared.isEmpty }
    }

    /// The sessions of one shared subscription, in the order they joined, and whose turn is next.
    private struct SharedGroup {
        var members: [(clientID: String, subscription: HouseBroker.Subscription)] = []
        var next = 0
    }

    /// How a message reaches one client through its (possibly overlapping) subscriptions: once,
    /// at the highest QoS granted (MQTT-3.3.5-1), retained as published if any of them says so,
    /// with the identifiers of all of them (MQTT-3.3.4-3).
    struct Delivery {
        var qos: HouseBroker.QoS
        var retainAsPublished: Bool
        var identifiers: [Int]
    }

    /// A shared subscription group a message matched: pick its member with `nextSharedMember`.
    struct SharedMatch {
        fileprivate let node: Int
        fileprivate let name: String
    }

    /// What a topic matches: the clients with ordinary subscriptions, and the shared groups.
    struct Matches {
        var clients: [String: Delivery] = [:]
        var shared: [SharedMatch] = []
    }

    private var nodes: [Node] = [Node(parent: -1, level: "")]
    private var freeList: [Int] = []

    /// Nodes in use, the root included (for tests and the memory estimate).
    var nodeCount: Int { nodes.count - freeList.count }

    /// The filter a subscription matches with and its share name: `$share/NAME/f` is `f` in group
    /// NAME; any other filter is itself. The filter was validated when it was subscribed.
    private static func split(_ filter: String) -> (filter: String, shareName: String?) {
        guard MQTTSharedSubscription.isShared(filter),
              let shared = try? MQTTSharedSubscription(parsing: filter) else { return (filter, nil) }
        return (shared.filter, shared.shareName)
    }

    /// Adds or replaces `clientID`'s subscription to `filter` (shared when it is `$share/NAME/...`).
    mutating func insert(filter fullFilter: String, clientID: String, subscription: HouseBroker.Subscription) {
        let (filter, shareName) = Self.split(fullFilter)
        var node = 0
        for level in filter.split(separator: "/", omittingEmptySubsequences: false) {
            if let next = nodes[node].children[level] {
                node = next
            } else {
                // A copy of the level alone, so the key does not keep the whole filter alive.
                let key = Substring(String(level))
                let next = allocate(Node(parent: node, level: key))
                nodes[node].children[key] = next
                node = next
            }
        }
        guard let shareName else {
            nodes[node].subscribers[clientID] = subscription
            return
        }
        var group = nodes[node].shared[shareName] ?? SharedGroup()
        if let index = group.members.firstIndex(where: { $0.clientID == clientID }) {
            group.members[index].subscription = subscription
        } else {
            group.members.append((clientID, subscription))
        }
        nodes[node].shared[shareName] = group
    }

    /// Removes `clientID`'s subscription to `filter`, pruning empty branches.
    mutating func remove(filter fullFilter: String, clientID: String) {
        let (filter, shareName) = Self.split(fullFilter)
        var node = 0
        for level in filter.split(separator: "/", omittingEmptySubsequences: false) {
            guard let next = nodes[node].children[level] else { return }
            node = next
        }
        if let shareName {
            if var group = nodes[node].shared[shareName], let index = group.members.firstIndex(where: { $0.clientID == clientID }) {
                group.members.remove(at: index)
                if index < group.next { group.next -= 1 }
                nodes[node].shared[shareName] = group.members.isEmpty ? nil : group
            }
        } else {
            nodes[node].subscribers[clientID] = nil
        }
        while node != 0, nodes[node].isEmpty {
            let parent = nodes[node].parent
            nodes[parent].children[nodes[node].level] = nil
            nodes[node] = Node(parent: -1, level: "")
            freeList.append(node)
            node = parent
        }
    }

    /// Every client with a subscription matching `topic` (but those with no local for messages
    /// `publisher` sent), and the shared groups it matches.
    func subscribers(matching topic: String, publisher: String) -> Matches {
        var result = Matches()
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        let dollar = topic.utf8.first == UInt8(ascii: "$")
        // Depth-first with an explicit stack of (node, index of the next topic level).
        var stack: [(node: Int, index: Int)] = [(0, 0)]
        while let (node, index) = stack.popLast() {
            let children = nodes[node].children
            // A leading wildcard does not match a `$` topic (MQTT-4.7.2-1).
            let wildcardsAllowed = !(index == 0 && dollar)
            if wildcardsAllowed, let hash = children["#"] { add(hash, publisher, into: &result) }
            if index == levels.count {
                add(node, publisher, into: &result)
                continue
            }
            if let exact = children[levels[index]] { stack.append((exact, index + 1)) }
            if wildcardsAllowed, let plus = children["+"] { stack.append((plus, index + 1)) }
        }
        return result
    }

    private func add(_ node: Int, _ publisher: String, into result: inout Matches) {
        for (client, subscription) in nodes[node].subscribers {
            if subscription.noLocal && client == publisher { continue }
            if var delivery = result.clients[client] {
                delivery.qos = max(delivery.qos, subscription.qos)
                delivery.retainAsPublished = delivery.retainAsPublished || subscription.retainAsPublished
                if let identifier = subscription.identifier { delivery.identifiers.append(identifier) }
                result.clients[client] = delivery
            } else {
                result.clients[client] = Delivery(qos: subscription.qos, retainAsPublished: subscription.retainAsPublished,
                                                  identifiers: subscription.identifier.map { [$0] } ?? [])
            }
        }
        if !nodes[node].shared.isEmpty {
            for name in nodes[node].shared.keys { result.shared.append(SharedMatch(node: node, name: name)) }
        }
    }

    /// The member of a matched shared group that gets the message: the next in turn that is
    /// `eligible` and `preferred` (connected), else the next `eligible` one; nil when none is.
    mutating func nextSharedMember(_ match: SharedMatch, eligible: (String) -> Bool, preferred: (String) -> Bool)
        -> (clientID: String, subscription: HouseBroker.Subscription)? {
        guard var group = nodes[match.node].shared[match.name], !group.members.isEmpty else { return nil }
        let count = group.members.count
        var chosen: Int?
        for pass in 0..<2 where chosen == nil {
            for offset in 0..<count {
                let index = (group.next + offset) % count
                let client = group.members[index].clientID
                if eligible(client) && (pass == 1 || preferred(client)) {
                    chosen = index
                    break
                }
            }
        }
        guard let chosen else { return nil }
        group.next = (chosen + 1) % count
        let member = group.members[chosen]
        nodes[match.node].shared[match.name] = group
        return member
    }

    private mutating func allocate(_ node: Node) -> Int {
        if let index = freeList.popLast() {
            nodes[index] = node
            return index
        }
        nodes.append(node)
        return nodes.count - 1
    }
}
