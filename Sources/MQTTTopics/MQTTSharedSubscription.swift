/// A shared subscription's topic filter, `$share/{ShareName}/{filter}` (MQTT 5 section 4.8.2): each
/// message matching `filter` goes to one of the sessions subscribed with the same share name, not
/// to all of them. HouseBroker (like mosquitto) also lets MQTT 3.1.1 clients subscribe this way.
public struct MQTTSharedSubscription: Sendable, Hashable {
    /// What every shared subscription's filter starts with.
    public static let prefix = "$share/"

    /// The group of sessions sharing the messages.
    public let shareName: String
    /// The topic filter the messages match.
    public let filter: String

    /// Whether `filter` is meant as a shared subscription (starts with `$share/`), valid or not.
    public static func isShared(_ filter: String) -> Bool { filter.utf8.starts(with: prefix.utf8) }

    /// Parses a filter that starts with `$share/`; throws why it is not a valid shared
    /// subscription: an empty share name or one with `+` or `#`, no `/` and filter after it
    /// (MQTT-4.8.2-1, MQTT-4.8.2-2), or an invalid filter.
    public init(parsing sharedFilter: String) throws(MQTTTopicProblem) {
        guard Self.isShared(sharedFilter) else { throw .notShared }
        let rest = sharedFilter.utf8.dropFirst(Self.prefix.utf8.count)
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else { throw .sharedFilterMissing }
        let name = rest[..<slash]
        if name.isEmpty || name.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") }) {
            throw .invalidShareName
        }
        let filter = String(Substring(rest[rest.index(after: slash)...]))
        if filter.isEmpty { throw .sharedFilterMissing }
        if let problem = MQTTTopic.filterProblem(filter) { throw problem }
        self.shareName = String(Substring(name))
        self.filter = filter
    }
}
