import HouseCore
import HouseMQTT

extension TopicLayout {
    /// A message on a node's status topic (`nodeStatusFilter`: a node's birth message, its
    /// `offline` at shutdown and its last will), read once for every subscriber of the topic.
    public struct NodeStatusMessage: Sendable, Equatable {
        /// The node whose status topic it came on.
        public let node: NodeID
        /// True for `online`, false for `offline` (whitespace and line breaks around either
        /// ignored); nil for anything else.
        public let online: Bool?
        /// The payload, trimmed (for a log line about one that says neither).
        public let text: String
    }

    /// Reads `message` as a node's status; nil when its topic is not `<base>/node/<node>/status`
    /// (a reader like `parseDeviceSet`; `nodeStatus(node:)` makes the topic).
    public func parseNodeStatus(_ message: MQTTMessage) -> NodeStatusMessage? {
        let prefix = "\(base)/node/", suffix = "/status"
        let topic = message.topic
        guard topic.count > prefix.count + suffix.count, topic.hasPrefix(prefix), topic.hasSuffix(suffix) else { return nil }
        let node = topic.dropFirst(prefix.count).dropLast(suffix.count)
        guard !node.contains("/") else { return nil }
        let text = message.string?.trimmedWhitespace ?? ""
        let online: Bool? = text == "online" ? true : (text == "offline" ? false : nil)
        return NodeStatusMessage(node: NodeID(String(node)), online: online, text: text)
    }
}
