import Testing
@testable import HouseMQTT

@Suite("MQTT topic names and filters")
struct TopicTests {
    @Test(arguments: ["house/+/light", "house/#", "#", "+", "a/b#", ""])
    func publishTopicsWithWildcardsOrEmptyAreRejected(topic: String) {
        #expect(throws: MQTTError.self) { try MQTTTopic.validateTopicName(topic) }
    }

    @Test func wildcardTopicErrorSaysWhy() {
        do {
            try MQTTTopic.validateTopicName("house/+/set")
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".contains("wildcards"))
            #expect("\(error)".contains("house/+/set"))
        }
    }

    @Test(arguments: ["house/bedroom/light/set", "/", "a//b", "$SYS/x", "ünïcode/topic"])
    func validTopicNamesPass(topic: String) throws {
        try MQTTTopic.validateTopicName(topic)
    }

    @Test(arguments: ["house/#/x", "house/a#", "house/+x", "x+/y", "", "a/#/#", "a\u{0}b"])
    func invalidFiltersAreRejected(filter: String) {
        #expect(throws: MQTTError.self) { try MQTTTopic.validateFilter(filter) }
    }

    @Test(arguments: ["#", "+", "house/#", "house/+/light", "+/+/+", "/#", "a//+"])
    func validFiltersPass(filter: String) throws {
        try MQTTTopic.validateFilter(filter)
    }

    @Test(arguments: [
        ("house/kitchen/light", "house/+/light", true),
        ("house/kitchen/light", "house/#", true),
        ("house", "house/#", true),
        ("house/kitchen/light/x", "house/+/light", false),
        ("house/kitchen", "house/+/light", false),
        ("house/kitchen/light", "#", true),
        ("$SYS/broker/uptime", "#", false),
        ("$SYS/broker/uptime", "+/broker/uptime", false),
        ("$SYS/broker/uptime", "$SYS/#", true),
        ("a/b", "a/b", true),
        ("a/b", "a/c", false),
        ("/x", "+/x", true),
        ("a//b", "a/+/b", true),
    ])
    func matching(topic: String, filter: String, expected: Bool) {
        #expect(MQTTTopic.matches(topic: topic, filter: filter) == expected)
    }

    /// A broker or a peer chooses these depths: validation and matching are loops, so the largest
    /// topic MQTT can carry (32,768 levels in 65,535 bytes) costs time, never the stack.
    @Test func deepTopicsAndFiltersDoNotRecurse() throws {
        let topic = String(repeating: "a/", count: 32_767) + "a"
        let filter = String(repeating: "+/", count: 32_767) + "a"
        try MQTTTopic.validateTopicName(topic)
        try MQTTTopic.validateFilter(filter)
        #expect(MQTTTopic.matches(topic: topic, filter: filter))
        #expect(!MQTTTopic.matches(topic: topic + "/b", filter: filter))
        #expect(MQTTTopic.matches(topic: topic, filter: String(repeating: "+/", count: 32_767) + "#"))
    }
}
