import Testing
@testable import MQTTTopics

@Suite("MQTT topic names and filters")
struct TopicTests {
    /// A filter without wildcards matches only the topic equal to it (what the client's exact
    /// comparison relies on).
    @Test func wildcardsAreFoundAndAFilterWithoutThemMatchesOnlyItself() {
        for filter in ["house/+/light", "house/#", "#", "+"] { #expect(MQTTTopic.hasWildcards(filter), "\(filter)") }
        for filter in ["house/kitchen/light/set", "$SYS/x", "a//b", "/"] {
            #expect(!MQTTTopic.hasWildcards(filter), "\(filter)")
            #expect(MQTTTopic.matches(topic: filter, filter: filter))
            #expect(!MQTTTopic.matches(topic: filter + "/x", filter: filter))
        }
    }

    @Test(arguments: ["house/+/light", "house/#", "#", "+", "a/b#", ""])
    func publishTopicsWithWildcardsOrEmptyAreRejected(topic: String) {
        #expect(MQTTTopic.topicNameProblem(topic) != nil)
    }

    @Test func topicProblemsSayWhy() {
        #expect(MQTTTopic.topicNameProblem("house/+/set") == .wildcardInTopicName)
        #expect("\(MQTTTopicProblem.wildcardInTopicName)".contains("wildcards"))
        #expect(MQTTTopic.topicNameProblem("") == .empty)
        #expect(MQTTTopic.topicNameProblem("a\u{0}b") == .containsNUL)
        #expect(MQTTTopic.topicNameProblem(String(repeating: "a", count: 65_536)) == .tooLong(bytes: 65_536))
        #expect(MQTTTopic.topicNameProblem(String(repeating: "a", count: 65_535)) == nil)
    }

    @Test(arguments: ["house/bedroom/light/set", "/", "a//b", "$SYS/x", "ünïcode/topic"])
    func validTopicNamesPass(topic: String) {
        #expect(MQTTTopic.topicNameProblem(topic) == nil)
    }

    @Test(arguments: [
        ("house/#/x", MQTTTopicProblem.hashNotLastLevel), ("house/a#", .hashNotWholeLevel), ("house/+x", .plusNotWholeLevel),
        ("x+/y", .plusNotWholeLevel), ("", .empty), ("a/#/#", .hashNotLastLevel), ("a\u{0}b", .containsNUL),
        ("a#", .hashNotWholeLevel), ("a+/b", .plusNotWholeLevel), ("#/", .hashNotLastLevel), ("#x", .hashNotWholeLevel),
        ("++", .plusNotWholeLevel), ("+#", .hashNotWholeLevel),
    ])
    func invalidFiltersAreRejected(filter: String, problem: MQTTTopicProblem) {
        #expect(MQTTTopic.filterProblem(filter) == problem)
        #expect(!MQTTTopic.isValidFilter(filter))
    }

    @Test(arguments: ["#", "+", "house/#", "house/+/light", "+/+/+", "/#", "a//+", "a/#", "+/+/#", "/", "a//b", "+/", "a/+"])
    func validFiltersPass(filter: String) {
        #expect(MQTTTopic.filterProblem(filter) == nil)
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
        ("a/", "a/+", true),
        ("a/", "a/#", true),
        ("a", "a/+", false),
        ("a/b", "a/b/", false),
        ("$SYS", "$SYS", true),
        ("ab", "a", false),
        ("a", "ab", false),
    ])
    func matching(topic: String, filter: String, expected: Bool) {
        #expect(MQTTTopic.matches(topic: topic, filter: filter) == expected)
    }

    /// A broker or a peer chooses these depths: validation and matching are loops, so the largest
    /// topic MQTT can carry (32,768 levels in 65,535 bytes) costs time, never the stack.
    @Test func deepTopicsAndFiltersDoNotRecurse() throws {
        let topic = String(repeating: "a/", count: 32_767) + "a"
        let filter = String(repeating: "+/", count: 32_767) + "a"
        #expect(MQTTTopic.topicNameProblem(topic) == nil)
        #expect(MQTTTopic.filterProblem(filter) == nil)
        #expect(MQTTTopic.matches(topic: topic, filter: filter))
        #expect(!MQTTTopic.matches(topic: topic + "/b", filter: filter))
        #expect(MQTTTopic.matches(topic: topic, filter: String(repeating: "+/", count: 32_767) + "#"))
    }

    @Test("covers: a pattern grants a subscription only when it matches everything the filter does", arguments: [
        ("#", "a/b", true), ("a/#", "a/+/c", true), ("a/+", "a/+", true), ("a/+", "a/#", false), ("a/b", "a/+", false),
        ("+/b", "a/b", true), ("#", "$SYS/x", false), ("$SYS/#", "$SYS/x", true), ("a/+", "a", false), ("a", "a/b", false),
    ])
    func covers(pattern: String, filter: String, expected: Bool) {
        #expect(MQTTTopic.covers(pattern: pattern, filter: filter) == expected)
    }

    /// The byte walk `matches` runs on native strings agrees with the level-by-level reference on
    /// every pair of topics and valid filters built from a few levels (empty levels, `$`,
    /// prefixes of each other, one level of a topic made `+`, `#` after any level).
    @Test func theByteWalkAgreesWithTheLevelWalk() {
        let levels = ["", "a", "ab", "b", "$SYS"]
        var topics: [String] = []
        func grow(_ prefix: [String], depth: Int) {
            if !prefix.isEmpty { topics.append(prefix.joined(separator: "/")) }
            guard depth > 0 else { return }
            for level in levels where !(level == "$SYS" && !prefix.isEmpty) { grow(prefix + [level], depth: depth - 1) }
        }
        grow([], depth: 3)
        var filters = Set(topics)
        for topic in topics {
            let parts = topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            for i in parts.indices {
                var plus = parts
                plus[i] = "+"
                filters.insert(plus.joined(separator: "/"))
                filters.insert((parts[..<i] + ["#"]).joined(separator: "/"))
                filters.insert((plus[...i] + ["#"]).joined(separator: "/"))
            }
        }
        var compared = 0, matched = 0
        for filter in filters where MQTTTopic.isValidFilter(filter) {
            for topic in topics where MQTTTopic.topicNameProblem(topic) == nil {
                let fast = MQTTTopic.matches(topic: topic, filter: filter)
                #expect(fast == MQTTTopic.matchesByLevels(topic: topic, filter: filter), "\(topic) against \(filter)")
                compared += 1
                if fast { matched += 1 }
            }
        }
        #expect(compared > 10_000 && matched > 500)
    }

    @Test("topic limits count levels and bytes")
    func topicLimits() {
        #expect(MQTTTopic.levelCount("a") == 1 && MQTTTopic.levelCount("/") == 2 && MQTTTopic.levelCount("a//b/") == 4)
        #expect(MQTTTopic.limitExceeded("a/b", maximumLevels: 2, maximumLength: 3) == nil)
        #expect(MQTTTopic.limitExceeded("a/b/c", maximumLevels: 2, maximumLength: 10) == "3 levels, more than the limit of 2")
        #expect(MQTTTopic.limitExceeded("abcd", maximumLevels: 2, maximumLength: 3) == "4 bytes, more than the limit of 3")
    }
}
