/// Topic name and filter rules (MQTT 3.1.1 section 4.7), pure and usable without a connection.
public enum MQTTTopic {
    /// The longest topic or filter MQTT can encode, in UTF-8 bytes.
    public static let maximumLength = 65_535

    /// Throws `MQTTError.invalidTopic` unless `topic` can be published to: not empty, no `+` or `#`,
    /// no NUL character, at most 65535 UTF-8 bytes.
    public static func validateTopicName(_ topic: String) throws {
        if topic.isEmpty { throw MQTTError.invalidTopic(topic, reason: "the topic is empty") }
        if topic.utf8.count > maximumLength {
            throw MQTTError.invalidTopic(String(topic.prefix(40)) + "…", reason: "longer than \(maximumLength) bytes")
        }
        if topic.contains("\0") { throw MQTTError.invalidTopic(topic, reason: "contains a NUL character") }
        if topic.contains("+") || topic.contains("#") {
            throw MQTTError.invalidTopic(topic, reason: "wildcards (+ or #) are only allowed in subscription filters")
        }
    }

    /// Throws `MQTTError.invalidFilter` unless `filter` is a valid subscription filter: not empty,
    /// `#` only as the whole last level, `+` only as a whole level, no NUL, at most 65535 bytes.
    public static func validateFilter(_ filter: String) throws {
        if filter.isEmpty { throw MQTTError.invalidFilter(filter, reason: "the filter is empty") }
        if filter.utf8.count > maximumLength {
            throw MQTTError.invalidFilter(String(filter.prefix(40)) + "…", reason: "longer than \(maximumLength) bytes")
        }
        if filter.contains("\0") { throw MQTTError.invalidFilter(filter, reason: "contains a NUL character") }
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in levels.enumerated() {
            if level.contains("#") {
                if level != "#" {
                    throw MQTTError.invalidFilter(filter, reason: "'#' must occupy a whole level")
                }
                if index != levels.count - 1 {
                    throw MQTTError.invalidFilter(filter, reason: "'#' is only allowed as the last level")
                }
            }
            if level.contains("+") && level != "+" {
                throw MQTTError.invalidFilter(filter, reason: "'+' must occupy a whole level")
            }
        }
    }

    /// Whether `filter` matches the topic name `topic`. Topics starting with `$` are not matched by
    /// a filter starting with a wildcard (MQTT 3.1.1 section 4.7.2).
    public static func matches(topic: String, filter: String) -> Bool {
        // Fast path (every message is matched against every subscription): without wildcards a
        // filter matches exactly one topic name.
        if !filter.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") }) { return topic == filter }
        let t = topic.split(separator: "/", omittingEmptySubsequences: false)
        let f = filter.split(separator: "/", omittingEmptySubsequences: false)
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
}
