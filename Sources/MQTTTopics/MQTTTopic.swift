/// MQTT topic names and topic filters (MQTT 3.1.1 section 4.7; MQTT 5 keeps the same rules): the one
/// place that validates and matches them, for the client (HouseMQTT), the broker (HouseBroker) and
/// the controller (HouseCore's input limits, the rules).
///
/// Every walk is a loop over the UTF-8 bytes, with no recursion and no allocation: a peer chooses
/// the depth (up to 32,768 levels in 65,535 bytes), and matching runs for every message.
public enum MQTTTopic {
    /// The longest topic name or filter MQTT can encode, in UTF-8 bytes.
    public static let maximumLength = 65_535

    /// Why `topic` cannot be published to, or nil when it can: not empty, at most 65,535 UTF-8
    /// bytes, no NUL character, no wildcard (MQTT-4.7.3-1, MQTT-4.7.3-2, MQTT-1.5.3-2).
    public static func topicNameProblem(_ topic: String) -> MQTTTopicProblem? {
        let bytes = topic.utf8
        if bytes.isEmpty { return .empty }
        if bytes.count > maximumLength { return .tooLong(bytes: bytes.count) }
        for byte in bytes {
            switch byte {
            case 0: return .containsNUL
            case UInt8(ascii: "+"), UInt8(ascii: "#"): return .wildcardInTopicName
            default: continue
            }
        }
        return nil
    }

    /// Why `filter` is not a valid subscription filter, or nil when it is: not empty, at most
    /// 65,535 UTF-8 bytes, no NUL, `+` only as a whole level, `#` only as the whole last level
    /// (MQTT-4.7.1-2, MQTT-4.7.1-3).
    public static func filterProblem(_ filter: String) -> MQTTTopicProblem? {
        let bytes = filter.utf8
        if bytes.isEmpty { return .empty }
        if bytes.count > maximumLength { return .tooLong(bytes: bytes.count) }
        let slash = UInt8(ascii: "/")
        var previous = slash  // a level starts after a slash, or at the start
        for byte in bytes {
            if previous == UInt8(ascii: "#") { return byte == slash ? .hashNotLastLevel : .hashNotWholeLevel }
            switch byte {
            case 0: return .containsNUL
            case UInt8(ascii: "#"): if previous != slash { return .hashNotWholeLevel }
            case UInt8(ascii: "+"): if previous != slash { return .plusNotWholeLevel }
            default: if previous == UInt8(ascii: "+") && byte != slash { return .plusNotWholeLevel }
            }
            previous = byte
        }
        return nil
    }

    /// Whether `filter` is a valid subscription filter (see `filterProblem(_:)`).
    public static func isValidFilter(_ filter: String) -> Bool { filterProblem(filter) == nil }

    /// The number of `/`-separated levels of a topic name or filter (`a/b` has 2, `/` has 2).
    public static func levelCount(_ topic: String) -> Int {
        var count = 1
        for byte in topic.utf8 where byte == UInt8(ascii: "/") { count += 1 }
        return count
    }

    /// Why `topic` passes a length or depth limit (a phrase for logs and answers), or nil when
    /// it is within both.
    public static func limitExceeded(_ topic: String, maximumLevels: Int, maximumLength: Int) -> String? {
        let length = topic.utf8.count
        if length > maximumLength { return "\(length) bytes, more than the limit of \(maximumLength)" }
        let levels = levelCount(topic)
        if levels > maximumLevels { return "\(levels) levels, more than the limit of \(maximumLevels)" }
        return nil
    }

    /// Whether `filter` holds a wildcard (`+` or `#`); a valid filter without one matches exactly
    /// the topic name equal to it.
    public static func hasWildcards(_ filter: String) -> Bool {
        filter.utf8.contains { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") }
    }

    /// Whether the valid filter `filter` matches the topic name `topic`: `+` matches one level,
    /// `#` the parent level and every level below. A topic starting with `$` is not matched by a
    /// filter starting with a wildcard (MQTT-4.7.2-1).
    public static func matches(topic: String, filter: String) -> Bool {
        if startsWithDollarUnderWildcard(topic, filter) { return false }
        // Both contiguous (every native string): one walk over the two byte buffers. It runs for
        // every message against every wildcard filter (the controller's MQTT thread, before the
        // command), where the level views cost ten times as much.
        if let matched = topic.utf8.withContiguousStorageIfAvailable({ t in
            filter.utf8.withContiguousStorageIfAvailable { f in matches(topic: t, filter: f) }
        }), let matched {
            return matched
        }
        return matchesByLevels(topic: topic, filter: filter)
    }

    /// `matches(topic:filter:)` on UTF-8 bytes, the `$` rule already checked.
    static func matches(topic t: UnsafeBufferPointer<UInt8>, filter f: UnsafeBufferPointer<UInt8>) -> Bool {
        let slash = UInt8(ascii: "/")
        var ti = 0, fi = 0
        var topicLeft = true  // whether the topic has a level at `ti`
        while true {
            var fe = fi
            while fe < f.count && f[fe] != slash { fe += 1 }
            let width = fe - fi
            if width == 1 && f[fi] == UInt8(ascii: "#") { return true }
            guard topicLeft else { return false }
            var te = ti
            while te < t.count && t[te] != slash { te += 1 }
            if !(width == 1 && f[fi] == UInt8(ascii: "+")) {
                guard te - ti == width else { return false }
                var k = 0
                while k < width {
                    if t[ti + k] != f[fi + k] { return false }
                    k += 1
                }
            }
            if te == t.count { topicLeft = false } else { ti = te + 1 }
            if fe == f.count { return !topicLeft }
            fi = fe + 1
        }
    }

    /// `matches(topic:filter:)` level by level, on any string (and the reference the tests hold
    /// the byte walk to).
    static func matchesByLevels(topic: String, filter: String) -> Bool {
        if startsWithDollarUnderWildcard(topic, filter) { return false }
        var filterLevels = MQTTTopicLevels(filter)
        var topicLevels = MQTTTopicLevels(topic)
        while let level = filterLevels.next() {
            if level.isHash { return true }
            guard let topicLevel = topicLevels.next() else { return false }
            if !level.isPlus && !level.elementsEqual(topicLevel) { return false }
        }
        return topicLevels.next() == nil
    }

    /// Whether every topic the valid filter `filter` matches is also matched by the valid filter
    /// `pattern` (an ACL pattern granting a subscription).
    public static func covers(pattern: String, filter: String) -> Bool {
        if startsWithDollarUnderWildcard(filter, pattern) { return false }
        var patternLevels = MQTTTopicLevels(pattern)
        var filterLevels = MQTTTopicLevels(filter)
        while let level = patternLevels.next() {
            if level.isHash { return true }
            guard let filterLevel = filterLevels.next(), !filterLevel.isHash else { return false }
            // `+` covers any single level, a `+` of the filter included.
            if !level.isPlus && !level.elementsEqual(filterLevel) { return false }
        }
        return filterLevels.next() == nil
    }

    /// A `$` topic (or filter) under a filter whose first level is a wildcard (MQTT-4.7.2-1).
    private static func startsWithDollarUnderWildcard(_ topic: String, _ filter: String) -> Bool {
        guard topic.utf8.first == UInt8(ascii: "$"), let first = filter.utf8.first else { return false }
        return first == UInt8(ascii: "+") || first == UInt8(ascii: "#")
    }
}
