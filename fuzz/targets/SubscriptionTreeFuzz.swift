// libFuzzer target: HouseBroker's SubscriptionTree against the reference matcher
// (MQTTTopic.matches). The input is a script: insert and remove subscriptions (shallow, deep and
// wide), match topics (shallow and deep), and compare every answer with the reference; at the end
// every subscription is removed and the tree must be back to its root. Compiled into the
// HouseBroker module by fuzz/build.py, so the internal tree is reachable and instrumented.

import MQTTTopics

/// Reads the fuzzer's bytes as a script.
private struct Script {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    mutating func next() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func byte() -> Int { Int(next() ?? 0) }

    static let filterLevels = ["a", "b", "c", "+", "", "$x", "a+b"]
    static let topicLevels = ["a", "b", "c", "", "$x", "d"]

    /// A short filter; may be invalid (`a+b`, `#` in the middle), which the tree never receives.
    mutating func shortFilter() -> String {
        let count = 1 + byte() % 6
        var levels = (0..<count).map { _ in Self.filterLevels[byte() % Self.filterLevels.count] }
        if byte() % 3 == 0 { levels.append("#") }
        return levels.joined(separator: "/")
    }

    mutating func shortTopic() -> String {
        let count = 1 + byte() % 6
        return (0..<count).map { _ in Self.topicLevels[byte() % Self.topicLevels.count] }.joined(separator: "/")
    }

    /// A deep filter or topic: up to 4,095 levels of a repeating pattern.
    mutating func deep(wildcards: Bool) -> String {
        let count = 1 + (byte() << 4 | byte() >> 4)
        let pattern = byte()
        let alphabet = wildcards ? ["a", "+", "b"] : ["a", "b"]
        var levels = (0..<count).map { alphabet[(pattern >> ($0 % 8)) % alphabet.count] }
        if wildcards && pattern & 0x80 != 0 { levels.append("#") }
        return levels.joined(separator: "/")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSubscriptionTree(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var script = Script(bytes: UnsafeBufferPointer(start: data, count: size))
    var tree = SubscriptionTree()
    // The reference: client -> filter -> QoS.
    var model: [String: [String: HouseBroker.QoS]] = [:]

    func insert(_ filter: String, _ client: String, _ qos: HouseBroker.QoS) {
        // Shared subscriptions ($share/NAME/...) are not in the reference model.
        guard MQTTTopic.isValidFilter(filter), !MQTTSharedSubscription.isShared(filter) else { return }
        tree.insert(filter: filter, clientID: client, subscription: .init(qos: qos))
        model[client, default: [:]][filter] = qos
    }

    func check(_ topic: String) {
        var expected: [String: HouseBroker.QoS] = [:]
        for (client, filters) in model {
            for (filter, qos) in filters where MQTTTopic.matches(topic: topic, filter: filter) {
                expected[client] = max(expected[client] ?? qos, qos)
            }
        }
        let actual = tree.subscribers(matching: topic, publisher: "").clients.mapValues(\.qos)
        if actual != expected {
            fatalError("tree and reference disagree on '\(topic.prefix(200))': \(actual) != \(expected)")
        }
    }

    while let op = script.next() {
        let client = "c\(script.byte() % 4)"
        switch op % 6 {
        case 0:
            insert(script.shortFilter(), client, HouseBroker.QoS(rawValue: UInt8(script.byte() % 3))!)
        case 1:
            insert(script.deep(wildcards: true), client, .atLeastOnce)
        case 2:
            // Wide: many siblings under one parent.
            let count = script.byte() % 64
            for k in 0..<count { insert("w/\(k)/" + (k % 2 == 0 ? "+" : "x"), client, .atMostOnce) }
        case 3:
            if let filters = model[client], !filters.isEmpty {
                let keys = filters.keys.sorted()
                let filter = keys[script.byte() % keys.count]
                tree.remove(filter: filter, clientID: client)
                model[client]![filter] = nil
            }
        case 4:
            check(script.shortTopic())
        default:
            check(script.byte() % 2 == 0 ? script.deep(wildcards: false) : "w/\(script.byte() % 64)/x")
        }
    }
    for (client, filters) in model {
        for filter in filters.keys { tree.remove(filter: filter, clientID: client) }
    }
    if tree.nodeCount != 1 { fatalError("\(tree.nodeCount) nodes left after removing every subscription") }
    return 0
}
