import NIOCore

/// A packet as the raw test client decodes it: written independently of the broker's codec.
enum RawPacket: Equatable, CustomStringConvertible {
    case connack(sessionPresent: Bool, code: UInt8)
    case publish(RawPublish)
    case puback(UInt16)
    case pubrec(UInt16)
    case pubrel(UInt16)
    case pubcomp(UInt16)
    case suback(UInt16, [UInt8])
    case unsuback(UInt16)
    case pingresp
    case other(UInt8, [UInt8])

    var description: String {
        switch self {
        case .publish(let p): "PUBLISH(\(p.topic) '\(p.payloadString)' q\(p.qos) r\(p.retain ? 1 : 0) d\(p.dup ? 1 : 0) id\(p.packetID))"
        case .connack(let present, let code): "CONNACK(present \(present) \(code))"
        case .puback(let id): "PUBACK(\(id))"
        case .pubrec(let id): "PUBREC(\(id))"
        case .pubrel(let id): "PUBREL(\(id))"
        case .pubcomp(let id): "PUBCOMP(\(id))"
        case .suback(let id, let codes): "SUBACK(\(id) \(codes))"
        case .unsuback(let id): "UNSUBACK(\(id))"
        case .pingresp: "PINGRESP"
        case .other(let header, let body): "packet 0x\(String(header, radix: 16)) \(body)"
        }
    }
}

/// A PUBLISH received by the raw test client.
struct RawPublish: Equatable {
    var topic: String
    var payload: [UInt8]
    var qos: UInt8
    var retain: Bool
    var dup: Bool
    var packetID: UInt16
    var payloadString: String { String(decoding: payload, as: UTF8.self) }
}

/// Encoders for client-to-server packets, byte by byte from the MQTT 3.1.1 text.
enum RawMQTT {
    static func remainingLength(_ n: Int) -> [UInt8] {
        var value = n
        var out: [UInt8] = []
        repeat {
            var byte = UInt8(value % 128)
            value /= 128
            if value > 0 { byte |= 0x80 }
            out.append(byte)
        } while value > 0
        return out
    }

    static func string(_ s: String) -> [UInt8] { binary(Array(s.utf8)) }
    static func binary(_ b: [UInt8]) -> [UInt8] { [UInt8(b.count >> 8), UInt8(b.count & 0xFF)] + b }

    static func packet(_ header: UInt8, _ body: [UInt8]) -> [UInt8] { [header] + remainingLength(body.count) + body }

    struct Will {
        var topic: String
        var payload: [UInt8]
        var qos: UInt8 = 0
        var retain = false
    }

    static func connect(clientID: String, cleanSession: Bool = true, keepAlive: UInt16 = 60, will: Will? = nil,
                        username: String? = nil, password: String? = nil,
                        protocolName: String = "MQTT", level: UInt8 = 4) -> [UInt8] {
        var flags: UInt8 = cleanSession ? 0x02 : 0
        if let will { flags |= 0x04 | (will.qos << 3) | (will.retain ? 0x20 : 0) }
        if username != nil { flags |= 0x80 }
        if password != nil { flags |= 0x40 }
        var body = string(protocolName) + [level, flags, UInt8(keepAlive >> 8), UInt8(keepAlive & 0xFF)]
        body += string(clientID)
        if let will { body += string(will.topic) + binary(will.payload) }
        if let username { body += string(username) }
        if let password { body += string(password) }
        return packet(0x10, body)
    }

    static func publish(topic: String, payload: [UInt8], qos: UInt8 = 0, retain: Bool = false, dup: Bool = false,
                        packetID: UInt16 = 0) -> [UInt8] {
        let header: UInt8 = 0x30 | (qos << 1) | (retain ? 1 : 0) | (dup ? 0x08 : 0)
        var body = string(topic)
        if qos > 0 { body += [UInt8(packetID >> 8), UInt8(packetID & 0xFF)] }
        return packet(header, body + payload)
    }

    static func publish(topic: String, _ payload: String, qos: UInt8 = 0, retain: Bool = false, packetID: UInt16 = 0) -> [UInt8] {
        publish(topic: topic, payload: Array(payload.utf8), qos: qos, retain: retain, packetID: packetID)
    }

    static func idPacket(_ header: UInt8, _ id: UInt16) -> [UInt8] { [header, 2, UInt8(id >> 8), UInt8(id & 0xFF)] }
    static func puback(_ id: UInt16) -> [UInt8] { idPacket(0x40, id) }
    static func pubrec(_ id: UInt16) -> [UInt8] { idPacket(0x50, id) }
    static func pubrel(_ id: UInt16) -> [UInt8] { idPacket(0x62, id) }
    static func pubcomp(_ id: UInt16) -> [UInt8] { idPacket(0x70, id) }

    static func subscribe(_ filters: [(String, UInt8)], packetID: UInt16) -> [UInt8] {
        var body: [UInt8] = [UInt8(packetID >> 8), UInt8(packetID & 0xFF)]
        for (filter, qos) in filters { body += string(filter) + [qos] }
        return packet(0x82, body)
    }

    static func unsubscribe(_ filters: [String], packetID: UInt16) -> [UInt8] {
        var body: [UInt8] = [UInt8(packetID >> 8), UInt8(packetID & 0xFF)]
        for filter in filters { body += string(filter) }
        return packet(0xA2, body)
    }

    static let pingreq: [UInt8] = [0xC0, 0]
    static let disconnect: [UInt8] = [0xE0, 0]

}

/// One packet as received: its first byte and its body, not yet decoded.
struct RawFrame: Equatable, Sendable {
    let header: UInt8
    let body: [UInt8]

    /// The two-byte integer at `offset` of the body (a packet identifier, a topic's length).
    func twoBytes(at offset: Int = 0) -> UInt16 { UInt16(body[offset]) << 8 | UInt16(body[offset + 1]) }

    /// A PUBLISH's variable header as both versions begin it: its QoS, topic and packet
    /// identifier (0 at QoS 0), and where the rest (MQTT 5's properties, then the payload) starts.
    func publishHead() -> (qos: UInt8, topic: String, packetID: UInt16, rest: Int) {
        let qos = (header >> 1) & 3
        let topicLength = Int(twoBytes())
        let topic = String(decoding: body[2..<(2 + topicLength)], as: UTF8.self)
        let offset = 2 + topicLength
        return qos > 0 ? (qos, topic, twoBytes(at: offset), offset + 2) : (qos, topic, 0, offset)
    }

    /// Takes one whole packet off the front of `bytes`, or nil when it is not all there yet.
    static func next(from bytes: inout [UInt8]) -> RawFrame? {
        guard bytes.count >= 2 else { return nil }
        var length = 0
        var multiplier = 1
        var index = 1
        while true {
            guard index < bytes.count else { return nil }
            let b = bytes[index]
            length += Int(b & 0x7F) * multiplier
            multiplier *= 128
            index += 1
            if b & 0x80 == 0 { break }
        }
        guard bytes.count >= index + length else { return nil }
        let frame = RawFrame(header: bytes[0], body: Array(bytes[index..<(index + length)]))
        bytes.removeFirst(index + length)
        return frame
    }
}

extension RawPacket {
    /// Decodes an MQTT 3.1.1 packet.
    init(_ frame: RawFrame) {
        let header = frame.header
        let body = frame.body
        func id() -> UInt16 { frame.twoBytes() }
        switch header >> 4 {
        case 2: self = .connack(sessionPresent: body[0] & 1 == 1, code: body[1])
        case 3:
            let (qos, topic, packetID, offset) = frame.publishHead()
            self = .publish(RawPublish(topic: topic, payload: Array(body[offset...]), qos: qos,
                                       retain: header & 1 == 1, dup: header & 8 == 8, packetID: packetID))
        case 4: self = .puback(id())
        case 5: self = .pubrec(id())
        case 6: self = .pubrel(id())
        case 7: self = .pubcomp(id())
        case 9: self = .suback(id(), Array(body[2...]))
        case 11: self = .unsuback(id())
        case 13: self = .pingresp
        default: self = .other(header, body)
        }
    }
}
