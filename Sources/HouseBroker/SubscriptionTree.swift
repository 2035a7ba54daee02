/// Subscriptions indexed by topic level, so routing a message costs the depth of its topic,
/// not the number of subscriptions.
final class SubscriptionTree {
    private final class Node {
        var children: [Substring: Node] = [:]
        var subscribers: [String: HouseBroker.QoS] = [:]
        var isEmpty: Bool { children.isEmpty && subscribers.isEmpty }
    }

    private let root = Node()

    /// Adds or replaces `clientID`'s subscription to `filter`.
    func insert(filter: String, clientID: String, qos: HouseBroker.QoS) {
        var node = root
        for level in filter.split(separator: "/", omittingEmptySubsequences: false) {
            if let next = node.children[level] {
                node = next
            } else {
                let next = Node()
                node.children[Substring(String(level))] = next
                node = next
            }
        }
        node.subscribers[clientID] = qos
    }

    /// Removes `clientID`'s subscription to `filter`, pruning empty branches.
    func remove(filter: String, clientID: String) {
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        var path: [Node] = [root]
        for level in levels {
            guard let next = path.last!.children[level] else { return }
            path.append(next)
        }
        path.last!.subscribers[clientID] = nil
        var index = levels.count
        while index > 0, path[index].isEmpty {
            path[index - 1].children[levels[index - 1]] = nil
            index -= 1
        }
    }

    /// Every client with a subscription matching `topic`, at the highest QoS among its matching
    /// subscriptions (overlapping subscriptions deliver once, MQTT-3.3.5-1).
    func subscribers(matching topic: String) -> [String: HouseBroker.QoS] {
        var result: [String: HouseBroker.QoS] = [:]
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        collect(root, levels, 0, dollar: topic.hasPrefix("$"), into: &result)
        return result
    }

    private func add(_ node: Node, into result: inout [String: HouseBroker.QoS]) {
        for (client, qos) in node.subscribers {
            if let existing = result[client], existing >= qos { continue }
            result[client] = qos
        }
    }

    private func collect(_ node: Node, _ levels: [Substring], _ index: Int, dollar: Bool,
                         into result: inout [String: HouseBroker.QoS]) {
        let wildcardsAllowed = !(index == 0 && dollar)
        if wildcardsAllowed, let hash = node.children["#"] { add(hash, into: &result) }
        if index == levels.count {
            add(node, into: &result)
            return
        }
        if let exact = node.children[levels[index]] {
            collect(exact, levels, index + 1, dollar: dollar, into: &result)
        }
        if wildcardsAllowed, let plus = node.children["+"] {
            collect(plus, levels, index + 1, dollar: dollar, into: &result)
        }
    }
}
