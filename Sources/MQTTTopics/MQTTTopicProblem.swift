/// Why a string is not a valid MQTT topic name or topic filter.
public enum MQTTTopicProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// No characters (MQTT-4.7.3-1).
    case empty
    /// More UTF-8 bytes than MQTT can encode (65,535).
    case tooLong(bytes: Int)
    /// A U+0000 character (MQTT-1.5.3-2).
    case containsNUL
    /// A `+` or `#` in a topic name (MQTT-3.3.2-2).
    case wildcardInTopicName
    /// A `#` next to other characters in its level (MQTT-4.7.1-2).
    case hashNotWholeLevel
    /// A `#` before the last level (MQTT-4.7.1-2).
    case hashNotLastLevel
    /// A `+` next to other characters in its level (MQTT-4.7.1-3).
    case plusNotWholeLevel
    /// A shared subscription (`$share/NAME/filter`) whose share name is empty or holds `+` or `#`
    /// (MQTT-4.8.2-1, MQTT-4.8.2-2).
    case invalidShareName
    /// A shared subscription without a filter after its share name (MQTT-4.8.2-2).
    case sharedFilterMissing
    /// Not a shared subscription: it does not start with `$share/`.
    case notShared

    public var description: String {
        switch self {
        case .empty: "it is empty"
        case .tooLong(let bytes): "\(bytes) bytes, longer than \(MQTTTopic.maximumLength) bytes"
        case .containsNUL: "contains a NUL character"
        case .wildcardInTopicName: "wildcards (+ or #) are only allowed in subscription filters"
        case .hashNotWholeLevel: "'#' must occupy a whole level"
        case .hashNotLastLevel: "'#' is only allowed as the last level"
        case .plusNotWholeLevel: "'+' must occupy a whole level"
        case .invalidShareName: "the share name of a $share/NAME/filter must be at least one character without '/', '+' or '#'"
        case .sharedFilterMissing: "a $share/NAME/ subscription needs a topic filter after the share name"
        case .notShared: "a shared subscription starts with $share/"
        }
    }
}
