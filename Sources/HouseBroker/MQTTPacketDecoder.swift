import MQTTTopics
import NIOCore

/// Frames and strictly validates client-to-server MQTT 3.1.1 packets.
///
/// Any violation throws `HouseBrokerError`; the connection handler then closes that connection
/// (answering CONNACK 1 first for an unsupported protocol level).
struct MQTTPacketDecoder: ByteToMessageDecoder {
    typealias InboundOut = MQTTPacket

    /// Largest accepted remaining length.
    let maximumPacketSize: Int
    /// Whether a packet was decoded: the first one must be a CONNECT, whose size is bounded.
    private var hasDecodedPacket = false

    /// The largest remaining length a CONNECT can have: protocol name, level, flags and keepalive
    /// (10 bytes) and five length-prefixed fields of at most 65,535 bytes (client id, will topic,
    /// will message, user name, password). Until a connection has sent its first packet it may
    /// not make the broker buffer more than this, whatever `maximumPacketSize` allows.
    static let maximumConnectSize = 10 + 5 * (2 + 65_535)

    init(maximumPacketSize: Int) {
        self.maximumPacketSize = maximumPacketSize
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let (header, remaining, headerLength) = try Self.peekFixedHeader(buffer) else {
            return .needMoreData
        }
        let limit = hasDecodedPacket ? maximumPacketSize : min(maximumPacketSize, Self.maximumConnectSize)
        if remaining > limit {
            throw HouseBrokerError.malformedPacket("remaining length \(remaining) exceeds the limit of \(limit) bytes\(hasDecodedPacket ? "" : " for a first packet (a CONNECT)")")
        }
        guard buffer.readableBytes >= headerLength + remaining else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: headerLength)
        var body = buffer.readSlice(length: remaining)!
        let packet = try Self.parse(header: header, body: &body)
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

    static func parse(header: UInt8, body: inout ByteBuffer) throws -> MQTTPacket {
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
            var filters: [(filter: String, qos: UInt8)] = []
            while body.readableBytes > 0 {
                let filter = try readString(&body, "SUBSCRIBE topic filter")
                guard let options = body.readInteger(as: UInt8.self) else {
                    throw HouseBrokerError.malformedPacket("SUBSCRIBE filter '\(filter)' without requested QoS")
                }
                guard options & 0xFC == 0, options <= 2 else {
                    throw HouseBrokerError.malformedPacket("SUBSCRIBE requested QoS byte 0x\(String(options, radix: 16)) is invalid")
                }
                filters.append((filter, options))
            }
            guard !filters.isEmpty else { throw HouseBrokerError.malformedPacket("SUBSCRIBE without topic filters") }
            return .subscribe(packetID: id, filters: filters)
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
            return .disconnect
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
        guard name == "MQTT", level == 4 else {
            throw HouseBrokerError.unacceptableProtocolLevel(name: name, level: level)
        }
        guard let flags = body.readInteger(as: UInt8.self), let keepAlive = body.readInteger(as: UInt16.self) else {
            throw HouseBrokerError.malformedPacket("CONNECT variable header truncated")
        }
        guard flags & 0x01 == 0 else { throw HouseBrokerError.malformedPacket("CONNECT reserved flag is set") }
        let cleanSession = flags & 0x02 != 0
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
        if passwordFlag && !usernameFlag {
            throw HouseBrokerError.malformedPacket("CONNECT password flag set without the user name flag")
        }
        let clientID = try readString(&body, "CONNECT client identifier")
        var will: WillMessage?
        if willFlag {
            let topic = try readString(&body, "CONNECT will topic")
            if let problem = MQTTTopic.topicNameProblem(topic) {
                throw HouseBrokerError.malformedPacket("CONNECT will topic '\(topic.prefix(80))': \(problem)")
            }
            let payload = try readBinary(&body, "CONNECT will message")
            will = WillMessage(topic: topic, payload: payload, qos: willQoS, retain: willRetain)
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
        return ConnectPacket(clientID: clientID, cleanSession: cleanSession, keepAlive: keepAlive,
                             will: will, username: username, password: password)
    }

    static func parsePublish(flags: UInt8, body: inout ByteBuffer) throws -> PublishPacket {
        let dup = flags & 0x08 != 0
        let retain = flags & 0x01 != 0
        guard let qos = HouseBroker.QoS(rawValue: (flags >> 1) & 0x03) else {
            throw HouseBrokerError.malformedPacket("PUBLISH with QoS 3")
        }
        if qos == .atMostOnce && dup { throw HouseBrokerError.malformedPacket("PUBLISH QoS 0 with DUP set") }
        let topic = try readString(&body, "PUBLISH topic name")
        if let problem = MQTTTopic.topicNameProblem(topic) {
            throw HouseBrokerError.malformedPacket("PUBLISH topic name '\(topic.prefix(80))': \(problem)")
        }
        var packetID: UInt16 = 0
        if qos != .atMostOnce { packetID = try readPacketID(&body, "PUBLISH") }
        return PublishPacket(topic: topic, payload: body, qos: qos, retain: retain, dup: dup, packetID: packetID)
    }
}
