/// Rules for topic names and topic filters (MQTT 3.1.1 section 4.7). Every walk here is a loop:
/// no recursion whose depth a client controls.
enum TopicName {
    /// The number of `/`-separated levels of a topic name or filter (`a/b` has 2, `/` has 2).
    static func levelCount(_ topic: String) -> Int {
        var count = 1
        for byte in topic.utf8 where byte == UInt8(ascii: "/") { count += 1 }
        return count
    }

    /// Why `topic` exceeds the configured limits (a phrase for logs), or nil when it is within them.
    static func limitExceeded(_ topic: String, maximumLevels: Int, maximumLength: Int) -> String? {
        let length = topic.utf8.count
        if length > maximumLength { return "\(length) bytes, more than the limit of \(maximumLength)" }
        let levels = levelCount(topic)
        if levels > maximumLevels { return "\(levels) levels, more than the limit of \(maximumLevels)" }
        return nil
    }

    /// A PUBLISH topic: at least one character, no wildcards (MQTT-3.3.2-2, MQTT-4.7.3-1).
    static func validate(_ topic: String) throws {
        if topic.isEmpty { throw HouseBrokerError.malformedPacket("topic name is empty") }
        if topic.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") }) {
            throw HouseBrokerError.malformedPacket("topic name '\(topic)' contains a wildcard")
        }
    }

    /// Whether `filter` is a valid topic filter: `#` only as a whole last level, `+` only as a whole level.
    static func isValidFilter(_ filter: String) -> Bool {
        if filter.isEmpty { return false }
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in levels.enumerated() {
            if level.contains("#") && (level != "#" || index != levels.count - 1) { return false }
            if level.contains("+") && level != "+" { return false }
        }
        return true
    }

    /// Whether the valid filter `filter` matches the topic name `topic`.
    /// Topics starting with `$` are not matched by a leading wildcard (MQTT-4.7.2-1).
    static func matches(filter: String, topic: String) -> Bool {
        let f = filter.split(separator: "/", omittingEmptySubsequences: false)
        let t = topic.split(separator: "/", omittingEmptySubsequences: false)
        if topic.hasPrefix("$"), let first = f.first, first == "+" || first == "#" { return false }
        var i = 0
        while i < f.count {
            if f[i] == "#" { return true }
            if i >= t.count { return false }
            if f[i] != "+" && f[i] != t[i] { return false }
            i += 1
        }
        return i == t.count
    }

    /// Whether every topic matched by `filter` is also matched by `pattern` (used for ACLs on subscriptions).
    static func covers(pattern: String, filter: String) -> Bool {
        let p = pattern.split(separator: "/", omittingEmptySubsequences: false)
        let f = filter.split(separator: "/", omittingEmptySubsequences: false)
        if filter.hasPrefix("$"), let first = p.first, first == "+" || first == "#" { return false }
        var i = 0
        while i < p.count {
            if p[i] == "#" { return true }
            if i >= f.count { return false }
            if f[i] == "#" { return false }
            if p[i] == "+" {
                // matches any single level, including a `+` in the filter
            } else if p[i] != f[i] {
                return false
            }
            i += 1
        }
        return i == f.count
    }
}
