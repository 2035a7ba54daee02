@testable import HouseBroker
import MQTTTopics
import Testing

@Suite("Subscription tree and SHA-256")
struct UnitTests {
    @Test("SHA-256 known answers")
    func sha256() {
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("tree removal prunes and keeps other subscribers")
    func tree() {
        var tree = SubscriptionTree()
        tree.insert(filter: "a/+", clientID: "x", subscription: .init(qos: .atLeastOnce))
        tree.insert(filter: "a/#", clientID: "y", subscription: .init(qos: .atMostOnce))
        tree.insert(filter: "a/b", clientID: "x", subscription: .init(qos: .exactlyOnce))
        #expect(tree.subscribers(matching: "a/b", publisher: "").clients.mapValues(\.qos) == ["x": .exactlyOnce, "y": .atMostOnce])
        tree.remove(filter: "a/b", clientID: "x")
        #expect(tree.subscribers(matching: "a/b", publisher: "").clients.mapValues(\.qos) == ["x": .atLeastOnce, "y": .atMostOnce])
        tree.remove(filter: "a/+", clientID: "x")
        tree.remove(filter: "a/#", clientID: "y")
        #expect(tree.subscribers(matching: "a/b", publisher: "").clients.isEmpty)
        #expect(tree.subscribers(matching: "a", publisher: "").clients.isEmpty)
    }

    @Test("tree agrees with the reference matcher")
    func treeAgreesWithMatcher() {
        let filters = ["#", "+", "+/+", "a/#", "a/+/c", "a/b/c", "/+", "+/b/#", "$SYS/#", "a//c", "a/+/+/#"]
        let topics = ["a", "a/b", "a/b/c", "a/x/c", "/a", "a//c", "$SYS/x", "b/b/b", "a/b/c/d", "x"]
        var tree = SubscriptionTree()
        for (index, filter) in filters.enumerated() { tree.insert(filter: filter, clientID: "\(index)", subscription: .init(qos: .atMostOnce)) }
        for topic in topics {
            let expected = Set(filters.indices.filter { MQTTTopic.matches(topic: topic, filter: filters[$0]) }.map { "\($0)" })
            #expect(Set(tree.subscribers(matching: topic, publisher: "").clients.keys) == expected, "\(topic)")
        }
    }
}
