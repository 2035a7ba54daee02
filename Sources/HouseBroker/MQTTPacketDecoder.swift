import MQTTTopics
import NIOCore

/// Frames and strictly validates client-to-server MQTT 3.1.1 and MQTT 5 packets. The first packet
/// (a CONNECT) sets the version the rest of the connection's packets are read in.
///
/// Any violation throws `HouseBrokerError`; the connection handler then closes that connection
/// (answering CONNACK 1 first for an unsupported protocol level). In an MQTT 5 connection the
/// error is a `violation` with the reason code the client is told (CONNACK during the CONNECT,
/// DISCONNECT after it): 0x81 for a malformed packet, 0x82 for a protocol error, 0x95 for a packet
/// above the maximum packet size, and so on.
struct MQTTPacketDecoder: ByteToMessageDecoder {
    typealias InboundOut = MQTTPacket

    /// Largest accepted remaining length.
    let maximumPacketSize: Int
    /// Whether a packet was decoded: the first one must be a CONNECT, whose size is bounded.
    private var hasDecodedPacket = false
    /// The version of the connection's CONNECT; nil before it.
    private var version: MQTTProtocolVersion?

    /// The largest remaining length a CONNECT can have: protocol name, level, flags and keepalive
    /// (10 bytes) and five length-prefixed fields of at most 65,535 bytes (client id, will topic,
    /// will message, user name, password), and for MQTT 5 two property blocks (CONNECT's and the
    /// will's) of at most 65,536 bytes each. Until a connection has sent its first packet it may
    /// not make the broker buffer more than this, whatever `maximumPacketSize` allows.
    static let maximumConnectSize = 10 + 5 * (2 + 65_535) + 2 * 65_536

    init(maximumPacketSize: Int) {
        self.maximumPacketSize = maximumPacketSize
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let (header, remaining, headerLength) = try Self.peekFixedHeader(buffer) else {
            return .needMoreData
        }
        let limit = hasDecodedPacket ? maximumPacketSize : min(maximumPacketSize, Self.maximumConnectSize)
        if remaining > limit {
            let why = "remaining length \(remaining) exceeds the limit of \(limit) bytes\(hasDecodedPacket ? "" : " for a first packet (a CONNECT)")"
            if version == .v5 || (version == nil && Self.isMQTT5Connect(buffer, headerLength: headerLength)) {
                throw HouseBrokerError.violation(.packetTooLarge, why)
            }
            throw HouseBrokerError.malformedPacket(why)
        }
        guard buffer.readableBytes >= headerLength + remaining else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: headerLength)
        var body = buffer.readSlice(length: remaining)!
        let packet: MQTTPacket
        do {
            packet = try Self.parse(header: header, body: &body, version: version ?? .v311)
        } catch let error as HouseBrokerError where version == .v5 {
            throw error.inMQTT5
        }
        if !hasDecodedPacket, case .connect(let connect) = packet { version = connect.version }
        hasDecodedPacket = true
        context.fireChannelRead(wrapInboundOut(packet))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }

    /// Reads the fixed header without consuming: (first byte, remaining length, header length).
    static func peekFixedHeader(_ buffer: ByteBuffer) throws -> (UInt8, Int, Int)? {
        guard let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else { return nil }
        var multiplier = 1
        var value = 0
        var index = buffer.readerIndex + 1
        for position in 0..<4 {
            guard let byte = buffer.getInteger(at: index, as: UInt8.self) else { return nil }
            index += 1
            value += Int(byte & 0x7F) * multiplier
            if byte & 0x80 == 0 { return (first, value, 2 + position) }
            multiplier *= 128
        }
        throw HouseBrokerError.malformedPacket("remaining length longer than 4 bytes")
    }

    /// Whether the buffered packet starts like an MQTT 5 CONNECT (type 1, protocol name MQTT, level 5).
    private static func isMQTT5Connect(_ buffer: ByteBuffer, headerLength: Int) -> Bool {
        guard buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) == 0x10,
              let start = buffer.getBytes(at: buffer.readerIndex + headerLength, length: 7) else { return false }
        return start == [0, 4, 0x4D, 0x51, 0x54, 0x54, 5]
    }

    /// Parses one packet's body for a connection speaking `version` (3.1.1 until its CONNECT).
    static func parse(header: UInt8, body: inout ByteBuffer, version: MQTTProtocolVersion = .v311) throws -> MQTTPacket {
        if version == .v5 { return try parseV5(header: header, body: &body) }
        let type = header >> 4
        let flags = header & 0x0F
        func requireFlags(_ expected: UInt8, _ name: String) throws {
            guard flags == expected else {
                throw HouseBrokerError.malformedPacket("\(name) with reserved flags 0x\(String(flags, radix: 16)) (expected 0x\(String(expected, radix: 16)))")
            }
        }
        func packetIDOnly(_ name: String) throws -> UInt16 {
            guard body.readableBytes == 2, let id = body.readInteger(as: UInt16.self) else {
                throw HouseBrokerError.malformedPacket("\(name) remaining length must be 2")
            }
            guard id != 0 else { throw HouseBrokerError.malformedPacket("\(name) with packet identifier 0") }
            return id
        }
        switch type {
        case 1:
            try requireFlags(0, "CONNECT")
            return .connect(try parseConnect(&body))
        case 3:
            return .publish(try parsePublish(flags: flags, body: &body))
        case 4:
            try requireFlags(0, "PUBACK")
            return .puback(try packetIDOnly("PUBACK"))
        case 5:
            try requireFlags(0, "PUBREC")
            return .pubrec(try packetIDOnly("PUBREC"))
        case 6:
            try requireFlags(2, "PUBREL")
            return .pubrel(try packetIDOnly("PUBREL"))
        case 7:
            try requireFlags(0, "PUBCOMP")
            return .pubcomp(try packetIDOnly("PUBCOMP"))
        case 8:
            try requireFlags(2, "SUBSCRIBE")
            let id = try readPacketID(&body, "SUBSCRIBE")
            var subscriptions: [(filter: String, options: HouseBroker.Subscription)] = []
            while body.readableBytes > 0 {
                let filter = try readString(&body, "SUBSCRIBE topic filter")
                guard let options = body.readInteger(as: UInt8.self) else {
                    throw HouseBrokerError.malformedPacket("SUBSCRIBE filter '\(filter)' without requested QoS")
                }
                guard options & 0xFC == 0, let qos = HouseBroker.QoS(rawValue: options) else {
                    throw HouseBrokerError.malformedPacket("SUBSCRIBE requested QoS byte 0x\(String(options, radix: 16)) is invalid")
                }
                subscriptions.append((filter, HouseBroker.Subscription(qos: qos)))
            }
            guard !subscriptions.isEmpty else { throw HouseBrokerError.malformedPacket("SUBSCRIBE without topic filters") }
            return .subscribe(SubscribePacket(packetID: id, subscriptions: subscriptions))
        case 10:
            try requireFlags(2, "UNSUBSCRIBE")
            let id = try readPacketID(&body, "UNSUBSCRIBE")
            var filters: [String] = []
            while body.readableBytes > 0 {
                filters.append(try readString(&body, "UNSUBSCRIBE topic filter"))
            }
            guard !filters.isEmpty else { throw HouseBrokerError.malformedPacket("UNSUBSCRIBE without topic filters") }
            return .unsubscribe(packetID: id, filters: filters)
        case 12:
            try requireFlags(0, "PINGREQ")
            guard body.readableBytes == 0 else { throw HouseBrokerError.malformedPacket("PINGREQ with a body") }
            return .pingreq
        case 14:
            try requireFlags(0, "DISCONNECT")
            guard body.readableBytes == 0 else { throw HouseBrokerError.malformedPacket("DISCONNECT with a body") }
            return .disconnect(DisconnectPacket())
        case 2, 9, 11, 13:
            throw HouseBrokerError.protocolViolation("packet type \(type) is sent only by servers")
        default:
            throw HouseBrokerError.malformedPacket("reserved packet type \(type)")
        }
    }

    static func readPacketID(_ body: inout ByteBuffer, _ name: String) throws -> UInt16 {
        guard let id = body.readInteger(as: UInt16.self) else {
            throw HouseBrokerError.malformedPacket("\(name) truncated before the packet identifier")
        }
        guard id != 0 else { throw HouseBrokerError.malformedPacket("\(name) with packet identifier 0") }
        return id
    }

    /// Reads a length-prefixed binary field.
    static func readBinary(_ body: inout ByteBuffer, _ what: String) throws -> ByteBuffer {
        guard let length = body.readInteger(as: UInt16.self), let bytes = body.readSlice(length: Int(length)) else {
            throw HouseBrokerError.malformedPacket("\(what) truncated")
        }
        return bytes
    }

    /// Reads a length-prefixed UTF-8 string: well-formed, no U+0000 (MQTT-1.5.3-1, -2).
    static func readString(_ body: inout ByteBuffer, _ what: String) throws -> String {
        let bytes = try readBinary(&body, what)
        return try validatedString(bytes, what)
    }

    static func validatedString(_ bytes: ByteBuffer, _ what: String) throws -> String {
        let view = bytes.readableBytesView
        if view.contains(0) { throw HouseBrokerError.malformedPacket("\(what) contains U+0000") }
        guard let string = String(validating: view, as: UTF8.self) else {
            throw HouseBrokerError.malformedPacket("\(what) is not well-formed UTF-8")
        }
        return string
    }

    static func parseConnect(_ body: inout ByteBuffer) throws -> ConnectPacket {
        let name = try readString(&body, "CONNECT protocol name")
        guard let level = body.readInteger(as: UInt8.self) else {
            throw HouseBrokerError.malformedPacket("CONNECT truncated before the protocol level")
        }
        guard name == "MQTT" || name == "MQIsdp" else {
            throw HouseBrokerError.malformedPacket("CONNECT protocol name '\(name)' is not MQTT")
        }
        // MQTT 3.1 is `MQIsdp` at level 3; 3.1.1 and 5 are `MQTT` at 4 and 5.
        guard let version = MQTTProtocolVersion(rawValue: level), (name == "MQIsdp") == (version == .v31) else {
            throw HouseBrokerError.unacceptableProtocolLevel(name: name, level: level)
        }
        if version != .v5 { return try parseConnectFields(&body, version: version) }
        do {
            return try parseConnectFields(&body, version: version)
        } catch let error as HouseBrokerError {
            throw error.inMQTT5
        }
    }

    /// CONNECT after the protocol level: flags, keepalive, (MQTT 5) properties, then the payload.
    private static func parseConnectFields(_ body: inout ByteBuffer, version: MQTTProtocolVersion) throws -> ConnectPacket {
        let v5 = version == .v5
        guard let flags = body.readInteger(as: UInt8.self), let keepAlive = body.readInteger(as: UInt16.self) else {
            throw HouseBrokerError.malformedPacket("CONNECT variable header truncated")
        }
        guard flags & 0x01 == 0 else { throw HouseBrokerError.malformedPacket("CONNECT reserved flag is set") }
        let cleanStart = flags & 0x02 != 0
        let willFlag = flags & 0x04 != 0
        let willQoSBits = (flags >> 3) & 0x03
        let willRetain = flags & 0x20 != 0
        let passwordFlag = flags & 0x40 != 0
        let usernameFlag = flags & 0x80 != 0
        if !willFlag && (willQoSBits != 0 || willRetain) {
            throw HouseBrokerError.malformedPacket("CONNECT will QoS/retain set without the will flag")
        }
        guard let willQoS = HouseBroker.QoS(rawValue: willQoSBits) else {
            throw HouseBrokerError.malformedPacket("CONNECT will QoS 3")
        }
        // MQTT 5 allows a password without a user name (section 3.1.2.9).
        if passwordFlag && !usernameFlag && !v5 {
            throw HouseBrokerError.malformedPacket("CONNECT password flag set without the user name flag")
        }
        let properties = v5 ? try MQTTProperties.decode(from: &body, in: .packet(.connect)) : MQTTProperties()
        if properties.authenticationData != nil && properties.authenticationMethod == nil {
            throw HouseBrokerError.protocolViolation("CONNECT has authentication data without an authentication method")
        }
        let clientID = try readString(&body, "CONNECT client identifier")
        var will: WillMessage?
        if willFlag {
            let willProperties = v5 ? try MQTTProperties.decode(from: &body, in: .will) : MQTTProperties()
            let topic = try readString(&body, "CONNECT will topic")
            if let problem = MQTTTopic.topicNameProblem(topic) {
                let why = "CONNECT will topic '\(topic.prefix(80))': \(problem)"
                throw v5 ? HouseBrokerError.violation(.topicNameInvalid, why) : HouseBrokerError.malformedPacket(why)
            }
            let payload = try readBinary(&body, "CONNECT will message")
            if willProperties.payloadFormat == .utf8, String(validating: payload.readableBytesView, as: UTF8.self) == nil {
                throw HouseBrokerError.violation(.payloadFormatInvalid, "CONNECT will message is said to be UTF-8 and is not")
            }
            will = WillMessage(topic: topic, payload: payload, qos: willQoS, retain: willRetain,
                               properties: MessageProperties.make(from: willProperties, receivedAt: .now()),
                               delayInterval: willProperties.willDelayInterval ?? 0)
        }
        let username = usernameFlag ? try readString(&body, "CONNECT user name") : nil
        var password: [UInt8]?
        if passwordFlag {
            let bytes = try readBinary(&body, "CONNECT password")
            password = Array(bytes.readableBytesView)
        }
        guard body.readableBytes == 0 else {
            throw HouseBrokerError.malformedPacket("CONNECT has \(body.readableBytes) unexpected trailing bytes")
        }
        return ConnectPacket(version: version, clientID: clientID, cleanStart: cleanStart, keepAlive: keepAlive,
                             will: will, username: username, password: password, properties: properties)
    }

    /// A PUBLISH's flags (DUP, QoS, RETAIN), the same in both versions: QoS 3 and DUP on QoS 0 are malformed.
    static func publishFlags(_ flags: UInt8) throws -> (qos: HouseBroker.QoS, dup: Bool, retain: Bool) {
        let dup = flags & 0x08 != 0
        guard let qos = HouseBroker.QoS(rawValue: (flags >> 1) & 0x03) else {
            throw HouseBrokerError.malformedPacket("PUBLISH with QoS 3")
        }
        if qos == .atMostOnce && dup { throw HouseBrokerError.malformedPacket("PUBLISH QoS 0 with DUP set") }
        return (qos, dup, flags & 0x01 != 0)
    }

    static func parsePublish(flags: UInt8, body: inout ByteBuffer) throws -> PublishPacket {
        let (qos, dup, retain) = try publishFlags(flags)
        let topic = try readString(&body, "PUBLISH topic name")
        if let problem = MQTTTopic.topicNameProblem(topic) {
            throw HouseBrokerError.malformedPacket("PUBLISH topic name '\(topic.prefix(80))': \(problem)")
        }
        var packetID: UInt16 = 0
        if qos != .atMostOnce { packetID = try readPacketID(&body, "PUBLISH") }
        return PublishPacket(topic: topic, payload: body, qos: qos, retain: retain, dup: dup, packetID: packetID)
    }
}
