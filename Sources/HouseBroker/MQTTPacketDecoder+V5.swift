import MQTTTopics
import NIOCore

extension MQTTPacketDecoder {
    /// Parses one packet of an MQTT 5 connection (after its CONNECT). Errors are thrown as for
    /// 3.1.1 (`malformedPacket`, `protocolViolation`) or as a `violation` with its own reason
    /// code; `decode` turns the first two into reason codes 0x81 and 0x82.
    static func parseV5(header: UInt8, body: inout ByteBuffer) throws -> MQTTPacket {
        let flags = header & 0x0F
        guard let type = MQTTPacketType(rawValue: header >> 4) else {
            throw HouseBrokerError.malformedPacket("reserved packet type 0")
        }
        func requireFlags(_ expected: UInt8) throws {
            guard flags == expected else {
                throw HouseBrokerError.malformedPacket("\(type) with reserved flags 0x\(String(flags, radix: 16)) (expected 0x\(String(expected, radix: 16)))")
            }
        }
        switch type {
        case .connect:
            try requireFlags(0)
            return .connect(try parseConnect(&body))
        case .publish:
            return .publish(try parsePublishV5(flags: flags, body: &body))
        case .puback:
            try requireFlags(0)
            let (id, code) = try parseAckV5(type, &body)
            return .puback(id, code)
        case .pubrec:
            try requireFlags(0)
            let (id, code) = try parseAckV5(type, &body)
            return .pubrec(id, code)
        case .pubrel:
            try requireFlags(2)
            let (id, code) = try parseAckV5(type, &body)
            return .pubrel(id, code)
        case .pubcomp:
            try requireFlags(0)
            let (id, code) = try parseAckV5(type, &body)
            return .pubcomp(id, code)
        case .subscribe:
            try requireFlags(2)
            return .subscribe(try parseSubscribeV5(&body))
        case .unsubscribe:
            try requireFlags(2)
            let id = try readPacketID(&body, "UNSUBSCRIBE")
            _ = try MQTTProperties.decode(from: &body, in: .packet(.unsubscribe))
            var filters: [String] = []
            while body.readableBytes > 0 {
                filters.append(try readString(&body, "UNSUBSCRIBE topic filter"))
            }
            guard !filters.isEmpty else { throw HouseBrokerError.protocolViolation("UNSUBSCRIBE without topic filters (MQTT-3.10.3-2)") }
            return .unsubscribe(packetID: id, filters: filters)
        case .pingreq:
            try requireFlags(0)
            guard body.readableBytes == 0 else { throw HouseBrokerError.malformedPacket("PINGREQ with a body") }
            return .pingreq
        case .disconnect:
            try requireFlags(0)
            let (code, properties) = try parseReasonAndProperties(type, &body)
            return .disconnect(DisconnectPacket(reasonCode: code, properties: properties))
        case .auth:
            try requireFlags(0)
            let (code, properties) = try parseReasonAndProperties(type, &body)
            return .auth(reasonCode: code, properties: properties)
        case .connack, .suback, .unsuback, .pingresp:
            throw HouseBrokerError.protocolViolation("\(type) is sent only by servers")
        }
    }

    /// PUBLISH: topic (empty when a topic alias stands for it), packet id, properties, payload.
    static func parsePublishV5(flags: UInt8, body: inout ByteBuffer) throws -> PublishPacket {
        let (qos, dup, retain) = try publishFlags(flags)
        let topic = try readString(&body, "PUBLISH topic name")
        var packetID: UInt16 = 0
        if qos != .atMostOnce { packetID = try readPacketID(&body, "PUBLISH") }
        let properties = try MQTTProperties.decode(from: &body, in: .packet(.publish))
        if !properties.subscriptionIdentifiers.isEmpty {
            throw HouseBrokerError.protocolViolation("PUBLISH from a client with a subscription identifier (MQTT-3.3.4-6)")
        }
        if topic.isEmpty {
            guard properties.topicAlias != nil else {
                throw HouseBrokerError.protocolViolation("PUBLISH with an empty topic name and no topic alias (MQTT 5 section 3.3.2.1)")
            }
        } else if let problem = MQTTTopic.topicNameProblem(topic) {
            throw HouseBrokerError.malformedPacket("PUBLISH topic name '\(topic.prefix(80))': \(problem)")
        }
        return PublishPacket(topic: topic, payload: body, qos: qos, retain: retain, dup: dup, packetID: packetID,
                             properties: MessageProperties.make(from: properties, receivedAt: .now()),
                             topicAlias: properties.topicAlias)
    }

    /// PUBACK, PUBREC, PUBREL, PUBCOMP: packet id, then (optional) a reason code valid for the
    /// packet and (optional) properties, which the broker does not use.
    private static func parseAckV5(_ type: MQTTPacketType, _ body: inout ByteBuffer) throws -> (UInt16, MQTTReasonCode) {
        let id = try readPacketID(&body, "\(type)")
        guard body.readableBytes > 0 else { return (id, .success) }
        let code = try readReasonCode(type, &body)
        if body.readableBytes > 0 {
            _ = try MQTTProperties.decode(from: &body, in: .packet(type))
            guard body.readableBytes == 0 else {
                throw HouseBrokerError.malformedPacket("\(type) has \(body.readableBytes) unexpected trailing bytes")
            }
        }
        return (id, code)
    }

    /// DISCONNECT, AUTH: nothing (success), or a reason code and (optional) properties.
    private static func parseReasonAndProperties(_ type: MQTTPacketType, _ body: inout ByteBuffer) throws -> (MQTTReasonCode, MQTTProperties) {
        guard body.readableBytes > 0 else { return (.success, MQTTProperties()) }
        let code = try readReasonCode(type, &body)
        guard body.readableBytes > 0 else { return (code, MQTTProperties()) }
        let properties = try MQTTProperties.decode(from: &body, in: .packet(type))
        guard body.readableBytes == 0 else {
            throw HouseBrokerError.malformedPacket("\(type) has \(body.readableBytes) unexpected trailing bytes")
        }
        return (code, properties)
    }

    /// A reason code byte, which must be one MQTT 5 defines for `type` (a protocol error otherwise).
    private static func readReasonCode(_ type: MQTTPacketType, _ body: inout ByteBuffer) throws -> MQTTReasonCode {
        let byte = body.readInteger(as: UInt8.self)!
        guard let code = MQTTReasonCode(rawValue: byte), code.isValid(in: type) else {
            throw HouseBrokerError.protocolViolation("\(type) with reason code 0x\(String(byte, radix: 16)), which is not one of \(type)'s")
        }
        return code
    }

    /// SUBSCRIBE: packet id, properties (one subscription identifier, user properties), then
    /// filters with their subscription options (MQTT 5 section 3.8.3.1).
    private static func parseSubscribeV5(_ body: inout ByteBuffer) throws -> SubscribePacket {
        let id = try readPacketID(&body, "SUBSCRIBE")
        let properties = try MQTTProperties.decode(from: &body, in: .packet(.subscribe))
        let identifier = properties.subscriptionIdentifiers.first
        var subscriptions: [(filter: String, options: HouseBroker.Subscription)] = []
        while body.readableBytes > 0 {
            let filter = try readString(&body, "SUBSCRIBE topic filter")
            guard let byte = body.readInteger(as: UInt8.self) else {
                throw HouseBrokerError.malformedPacket("SUBSCRIBE filter '\(filter.prefix(80))' without subscription options")
            }
            guard byte & 0xC0 == 0 else {
                throw HouseBrokerError.malformedPacket("SUBSCRIBE options 0x\(String(byte, radix: 16)) set reserved bits (MQTT-3.8.3-5)")
            }
            guard let qos = HouseBroker.QoS(rawValue: byte & 0x03) else {
                throw HouseBrokerError.malformedPacket("SUBSCRIBE options ask for QoS 3")
            }
            guard let retainHandling = HouseBroker.RetainHandling(rawValue: (byte >> 4) & 0x03) else {
                throw HouseBrokerError.protocolViolation("SUBSCRIBE options with retain handling 3")
            }
            let noLocal = byte & 0x04 != 0
            if noLocal && MQTTSharedSubscription.isShared(filter) {
                throw HouseBrokerError.protocolViolation("SUBSCRIBE with no local on the shared subscription '\(filter.prefix(80))' (MQTT-3.8.3-4)")
            }
            subscriptions.append((filter, HouseBroker.Subscription(
                qos: qos, noLocal: noLocal, retainAsPublished: byte & 0x08 != 0, retainHandling: retainHandling,
                identifier: identifier)))
        }
        guard !subscriptions.isEmpty else {
            throw HouseBrokerError.protocolViolation("SUBSCRIBE without topic filters (MQTT-3.8.3-2)")
        }
        return SubscribePacket(packetID: id, subscriptions: subscriptions)
    }
}
