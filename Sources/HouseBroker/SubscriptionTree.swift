/// Subscriptions indexed by topic level, so routing a message costs the depth of its topic,
/// not the number of subscriptions.
///
/// The nodes live in one flat array and refer to each other by index: every walk (insert, remove,
/// match) is a loop with an explicit stack, and freeing the tree frees an array, so no depth a
/// client chooses can overflow the thread's stack. Removed nodes are recycled.
struct SubscriptionTree {
    private struct Node {
        var parent: Int
        /// This node's level in its parent's `children` (empty for the root).
        var level: Substring
        var children: [Substring: Int] = [:]
        var subscribers: [String: HouseBroker.QoS] = [:]
        var isEmpty: Bool { children.isEmpty && subscribers.isEmpty }
    }

    private var nodes: [Node] = [Node(parent: -1, level: "")]
    private var freeList: [Int] = []

    /// Nodes in use, the root included (for tests and the memory estimate).
    var nodeCount: Int { nodes.count - freeList.count }

    /// Adds or replaces `clientID`'s subscription to `filter`.
    mutating func insert(filter: String, clientID: String, qos: HouseBroker.QoS) {
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
        nodes[node].subscribers[clientID] = qos
    }

    /// Removes `clientID`'s subscription to `filter`, pruning empty branches.
    mutating func remove(filter: String, clientID: String) {
        var node = 0
        for level in filter.split(separator: "/", omittingEmptySubsequences: false) {
            guard let next = nodes[node].children[level] else { return }
            node = next
        }
        nodes[node].subscribers[clientID] = nil
        while node != 0, nodes[node].isEmpty {
            let parent = nodes[node].parent
            nodes[parent].children[nodes[node].level] = nil
            nodes[node] = Node(parent: -1, level: "")
            freeList.append(node)
            node = parent
        }
    }

    /// Every client with a subscription matching `topic`, at the highest QoS among its matching
    /// subscriptions (overlapping subscriptions deliver once, MQTT-3.3.5-1).
    func subscribers(matching topic: String) -> [String: HouseBroker.QoS] {
        var result: [String: HouseBroker.QoS] = [:]
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        let dollar = topic.utf8.first == UInt8(ascii: "$")
        // Depth-first with an explicit stack of (node, index of the next topic level).
        var stack: [(node: Int, index: Int)] = [(0, 0)]
        while let (node, index) = stack.popLast() {
            let children = nodes[node].children
            // A leading wildcard does not match a `$` topic (MQTT-4.7.2-1).
            let wildcardsAllowed = !(index == 0 && dollar)
            if wildcardsAllowed, let hash = children["#"] { add(hash, into: &result) }
            if index == levels.count {
                add(node, into: &result)
                continue
            }
            if let exact = children[levels[index]] { stack.append((exact, index + 1)) }
            if wildcardsAllowed, let plus = children["+"] { stack.append((plus, index + 1)) }
        }
        return result
    }

    private func add(_ node: Int, into result: inout [String: HouseBroker.QoS]) {
        for (client, qos) in nodes[node].subscribers {
            if let existing = result[client], existing >= qos { continue }
            result[client] = qos
        }
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
