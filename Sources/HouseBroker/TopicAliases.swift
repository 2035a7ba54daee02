/// The topic aliases of one MQTT 5 connection, both directions (MQTT 5 section 3.3.2.3.4). They
/// last as long as the network connection (MQTT-3.3.2-7) and are bounded: at most `maximum`
/// aliases each way, of topics no longer than the broker routes.
struct TopicAliases {
    /// The aliases the client set: alias to topic name.
    private var inbound: [UInt16: String] = [:]
    /// The highest alias the client may set (the broker's Topic Alias Maximum).
    let inboundMaximum: Int
    /// The aliases the broker set for the client: topic name to alias.
    private var outbound: [String: UInt16] = [:]
    /// How many aliases the broker may set: the client's Topic Alias Maximum within the broker's own.
    let outboundMaximum: Int

    init(inboundMaximum: Int, outboundMaximum: Int) {
        self.inboundMaximum = inboundMaximum
        self.outboundMaximum = outboundMaximum
    }

    /// Resolves the topic alias of a PUBLISH from the client: an alias with a topic (re)sets it,
    /// an alias with an empty topic stands for the topic it was set to. An alias above the
    /// maximum is 0x94 (topic alias invalid); one not set on this connection is a protocol
    /// error. A topic longer than `maximumTopicLength` is not kept (the broker does not route it).
    mutating func resolve(_ packet: inout PublishPacket, maximumTopicLength: Int) throws {
        guard let alias = packet.topicAlias else { return }
        guard Int(alias) <= inboundMaximum else {
            throw HouseBrokerError.violation(.topicAliasInvalid, "topic alias \(alias) is above the topic alias maximum of \(inboundMaximum)")
        }
        if packet.topic.isEmpty {
            guard let topic = inbound[alias] else {
                throw HouseBrokerError.violation(.protocolError, "topic alias \(alias) was not set on this connection")
            }
            packet.topic = topic
        } else {
            inbound[alias] = packet.topic.utf8.count <= maximumTopicLength ? packet.topic : nil
        }
    }

    /// The alias for a message to the client on `topic`: one already set (the topic need not be
    /// sent), or a new one while there is room (sent with the topic; `commit` it once sent).
    func outboundAlias(for topic: String) -> (alias: UInt16, isSet: Bool)? {
        if let alias = outbound[topic] { return (alias, true) }
        guard outbound.count < outboundMaximum else { return nil }
        return (UInt16(outbound.count + 1), false)
    }

    /// Records a new alias sent to the client.
    mutating func commit(_ alias: UInt16, for topic: String) {
        outbound[topic] = alias
    }
}
