/// MQTT 5 packets for the tests, encoded and decoded byte by byte from the MQTT 5 text, written
/// independently of the broker's codec (so a test of the codec is not the codec checking itself).

/// The properties of a test packet: each an optional set or read by hand.
struct Props5: Equatable, Sendable, CustomStringConvertible {
    var payloadFormat: UInt8?             // 0x01
    var messageExpiry: UInt32?            // 0x02
    var contentType: String?              // 0x03
    var responseTopic: String?            // 0x08
    var correlationData: [UInt8]?         // 0x09
    var subscriptionIdentifiers: [Int] = []  // 0x0B
    var sessionExpiry: UInt32?            // 0x11
    var assignedClientID: String?         // 0x12
    var serverKeepAlive: UInt16?          // 0x13
    var authenticationMethod: String?     // 0x15
    var authenticationData: [UInt8]?      // 0x16
    var requestProblemInformation: UInt8? // 0x17
    var willDelay: UInt32?                // 0x18
    var requestResponseInformation: UInt8?  // 0x19
    var reasonString: String?             // 0x1F
    var receiveMaximum: UInt16?           // 0x21
    var topicAliasMaximum: UInt16?        // 0x22
    var topicAlias: UInt16?               // 0x23
    var maximumQoS: UInt8?                // 0x24
    var retainAvailable: UInt8?           // 0x25
    var userProperties: [Pair] = []       // 0x26
    var maximumPacketSize: UInt32?        // 0x27
    var wildcardAvailable: UInt8?         // 0x28
    var subscriptionIDsAvailable: UInt8?  // 0x29
    var sharedAvailable: UInt8?           // 0x2A
    /// Identifiers the decoder did not know (none expected).
    var unknown: [UInt8] = []

    struct Pair: Equatable, Sendable, CustomStringConvertible {
        var name: String
        var value: String
        init(_ name: String, _ value: String) { self.name = name; self.value = value }
        var description: String { "\(name)=\(value)" }
    }

    var description: String {
        var parts: [String] = []
        for child in Mirror(reflecting: self).children {
            let label = child.label ?? "?"
            let inner = Mirror(reflecting: child.value)
            if inner.displayStyle == .optional {
                guard let value = inner.children.first?.value else { continue }
                parts.append("\(label): \(value)")
            } else if let array = child.value as? [Any], array.isEmpty {
                continue
            } else {
                parts.append("\(label): \(child.value)")
            }
        }
        return "{" + parts.joined(separator: ", ") + "}"
    }

    /// The property block: length, then the properties.
    func encoded() -> [UInt8] {
        var out: [UInt8] = []
        func byte(_ id: UInt8, _ value: UInt8?) { if let value { out += [id, value] } }
        func two(_ id: UInt8, _ value: UInt16?) { if let value { out += [id] + RawMQTT5.u16(value) } }
        func four(_ id: UInt8, _ value: UInt32?) { if let value { out += [id] + RawMQTT5.u32(value) } }
        func string(_ id: UInt8, _ value: String?) { if let value { out += [id] + RawMQTT.string(value) } }
        func binary(_ id: UInt8, _ value: [UInt8]?) { if let value { out += [id] + RawMQTT.binary(value) } }
        byte(0x01, payloadFormat)
        four(0x02, messageExpiry)
        string(0x03, contentType)
        string(0x08, responseTopic)
        binary(0x09, correlationData)
        for identifier in subscriptionIdentifiers { out += [0x0B] + RawMQTT.remainingLength(identifier) }
        four(0x11, sessionExpiry)
        string(0x12, assignedClientID)
        two(0x13, serverKeepAlive)
        string(0x15, authenticationMethod)
        binary(0x16, authenticationData)
        byte(0x17, requestProblemInformation)
        four(0x18, willDelay)
        byte(0x19, requestResponseInformation)
        string(0x1F, reasonString)
        two(0x21, receiveMaximum)
        two(0x22, topicAliasMaximum)
        two(0x23, topicAlias)
        byte(0x24, maximumQoS)
        byte(0x25, retainAvailable)
        for pair in userProperties { out += [0x26] + RawMQTT.string(pair.name) + RawMQTT.string(pair.value) }
        four(0x27, maximumPacketSize)
        byte(0x28, wildcardAvailable)
        byte(0x29, subscriptionIDsAvailable)
        byte(0x2A, sharedAvailable)
        return RawMQTT.remainingLength(out.count) + out
    }

    /// Reads a property block at `offset` of `body`, advancing `offset` past it.
    static func decode(_ body: [UInt8], at offset: inout Int) -> Props5 {
        var props = Props5()
        guard offset < body.count else { return props }
        let length = RawMQTT5.variableInteger(body, at: &offset)
        let end = min(offset + length, body.count)
        func u16() -> UInt16 { defer { offset += 2 }; return UInt16(body[offset]) << 8 | UInt16(body[offset + 1]) }
        func u32() -> UInt32 { UInt32(u16()) << 16 | UInt32(u16()) }
        func bytes() -> [UInt8] { let n = Int(u16()); defer { offset += n }; return Array(body[offset..<(offset + n)]) }
        func string() -> String { String(decoding: bytes(), as: UTF8.self) }
        func byte() -> UInt8 { defer { offset += 1 }; return body[offset] }
        while offset < end {
            let id = byte()
            switch id {
            case 0x01: props.payloadFormat = byte()
            case 0x02: props.messageExpiry = u32()
            case 0x03: props.contentType = string()
            case 0x08: props.responseTopic = string()
            case 0x09: props.correlationData = bytes()
            case 0x0B: props.subscriptionIdentifiers.append(RawMQTT5.variableInteger(body, at: &offset))
            case 0x11: props.sessionExpiry = u32()
            case 0x12: props.assignedClientID = string()
            case 0x13: props.serverKeepAlive = u16()
            case 0x15: props.authenticationMethod = string()
            case 0x16: props.authenticationData = bytes()
            case 0x1F: props.reasonString = string()
            case 0x21: props.receiveMaximum = u16()
            case 0x22: props.topicAliasMaximum = u16()
            case 0x23: props.topicAlias = u16()
            case 0x24: props.maximumQoS = byte()
            case 0x25: props.retainAvailable = byte()
            case 0x26: props.userProperties.append(Pair(string(), string()))
            case 0x27: props.maximumPacketSize = u32()
            case 0x28: props.wildcardAvailable = byte()
            case 0x29: props.subscriptionIDsAvailable = byte()
            case 0x2A: props.sharedAvailable = byte()
            default:
                props.unknown.append(id)
                offset = end
            }
        }
        offset = end
        return props
    }
}

/// An MQTT 5 PUBLISH received by a test client.
struct Publish5: Equatable, Sendable, CustomStringConvertible {
    var topic: String
    var payload: [UInt8]
    var qos: UInt8
    var retain: Bool
    var dup: Bool
    var packetID: UInt16
    var properties: Props5
    var payloadString: String { String(decoding: payload, as: UTF8.self) }
    var description: String {
        "PUBLISH(\(topic) '\(payloadString)' q\(qos) r\(retain ? 1 : 0) d\(dup ? 1 : 0) id\(packetID) \(properties))"
    }
}

/// A packet an MQTT 5 test client received.
enum Packet5: Equatable, Sendable, CustomStringConvertible {
    case connack(sessionPresent: Bool, code: UInt8, Props5)
    case publish(Publish5)
    case puback(UInt16, code: UInt8)
    case pubrec(UInt16, code: UInt8)
    case pubrel(UInt16, code: UInt8)
    case pubcomp(UInt16, code: UInt8)
    case suback(UInt16, codes: [UInt8])
    case unsuback(UInt16, codes: [UInt8])
    case pingresp
    case disconnect(code: UInt8, Props5)
    case other(UInt8, [UInt8])

    var description: String {
        switch self {
        case .publish(let p): p.description
        case .disconnect(let code, let props): "DISCONNECT(0x\(String(code, radix: 16)) \(props))"
        case .connack(let present, let code, let props): "CONNACK(present \(present) 0x\(String(code, radix: 16)) \(props))"
        case .puback(let id, let code): "PUBACK(\(id) 0x\(String(code, radix: 16)))"
        case .pubrec(let id, let code): "PUBREC(\(id) 0x\(String(code, radix: 16)))"
        case .pubrel(let id, let code): "PUBREL(\(id) 0x\(String(code, radix: 16)))"
        case .pubcomp(let id, let code): "PUBCOMP(\(id) 0x\(String(code, radix: 16)))"
        case .suback(let id, let codes): "SUBACK(\(id) \(codes))"
        case .unsuback(let id, let codes): "UNSUBACK(\(id) \(codes))"
        case .pingresp: "PINGRESP"
        case .other(let header, let body): "packet 0x\(String(header, radix: 16)) \(body)"
        }
    }

    /// Decodes a frame as MQTT 5 (section 3).
    init(_ frame: RawFrame) {
        let header = frame.header
        let body = frame.body
        func id() -> UInt16 { frame.twoBytes() }
        func ackCode() -> UInt8 { body.count > 2 ? body[2] : 0 }
        func codes() -> [UInt8] {
            var offset = 2
            _ = Props5.decode(body, at: &offset)
            return Array(body[offset...])
        }
        switch header >> 4 {
        case 2:
            var offset = 2
            self = .connack(sessionPresent: body[0] & 1 == 1, code: body[1], Props5.decode(body, at: &offset))
        case 3:
            let head = frame.publishHead()
            var offset = head.rest
            let props = Props5.decode(body, at: &offset)
            self = .publish(Publish5(topic: head.topic, payload: Array(body[offset...]), qos: head.qos, retain: header & 1 == 1,
                                     dup: header & 8 == 8, packetID: head.packetID, properties: props))
        case 4: self = .puback(id(), code: ackCode())
        case 5: self = .pubrec(id(), code: ackCode())
        case 6: self = .pubrel(id(), code: ackCode())
        case 7: self = .pubcomp(id(), code: ackCode())
        case 9: self = .suback(id(), codes: codes())
        case 11: self = .unsuback(id(), codes: codes())
        case 13: self = .pingresp
        case 14:
            var offset = 1
            self = .disconnect(code: body.first ?? 0, body.count > 1 ? Props5.decode(body, at: &offset) : Props5())
        default: self = .other(header, body)
        }
    }
}

/// Encoders for client-to-server MQTT 5 packets.
enum RawMQTT5 {
    static func u16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func u32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    static func variableInteger(_ bytes: [UInt8], at offset: inout Int) -> Int {
        var value = 0
        var multiplier = 1
        while offset < bytes.count {
            let byte = bytes[offset]
            offset += 1
            value += Int(byte & 0x7F) * multiplier
            if byte & 0x80 == 0 { break }
            multiplier *= 128
        }
        return value
    }

    struct Will {
        var topic: String
        var payload: [UInt8]
        var qos: UInt8 = 0
        var retain = false
        var properties = Props5()
    }

    static func connect(clientID: String, cleanStart: Bool = true, keepAlive: UInt16 = 60, properties: Props5 = Props5(),
                        will: Will? = nil, username: String? = nil, password: String? = nil) -> [UInt8] {
        var flags: UInt8 = cleanStart ? 0x02 : 0
        if let will { flags |= 0x04 | (will.qos << 3) | (will.retain ? 0x20 : 0) }
        if username != nil { flags |= 0x80 }
        if password != nil { flags |= 0x40 }
        var body = RawMQTT.string("MQTT") + [5, flags] + u16(keepAlive) + properties.encoded()
        body += RawMQTT.string(clientID)
        if let will { body += will.properties.encoded() + RawMQTT.string(will.topic) + RawMQTT.binary(will.payload) }
        if let username { body += RawMQTT.string(username) }
        if let password { body += RawMQTT.string(password) }
        return RawMQTT.packet(0x10, body)
    }

    static func publish(topic: String, payload: [UInt8], qos: UInt8 = 0, retain: Bool = false, dup: Bool = false,
                        packetID: UInt16 = 0, properties: Props5 = Props5()) -> [UInt8] {
        let header: UInt8 = 0x30 | (qos << 1) | (retain ? 1 : 0) | (dup ? 0x08 : 0)
        var body = RawMQTT.string(topic)
        if qos > 0 { body += u16(packetID) }
        return RawMQTT.packet(header, body + properties.encoded() + payload)
    }

    /// Subscription options byte: QoS, no local (bit 2), retain as published (bit 3), retain handling (bits 4-5).
    static func options(qos: UInt8, noLocal: Bool = false, retainAsPublished: Bool = false, retainHandling: UInt8 = 0) -> UInt8 {
        qos | (noLocal ? 0x04 : 0) | (retainAsPublished ? 0x08 : 0) | (retainHandling << 4)
    }

    static func subscribe(_ filters: [(String, UInt8)], packetID: UInt16, properties: Props5 = Props5()) -> [UInt8] {
        var body = u16(packetID) + properties.encoded()
        for (filter, options) in filters { body += RawMQTT.string(filter) + [options] }
        return RawMQTT.packet(0x82, body)
    }

    static func unsubscribe(_ filters: [String], packetID: UInt16) -> [UInt8] {
        var body = u16(packetID) + [0]
        for filter in filters { body += RawMQTT.string(filter) }
        return RawMQTT.packet(0xA2, body)
    }

    /// PUBACK, PUBREC, PUBREL (header 0x62) or PUBCOMP with a reason code (the short form for 0).
    static func ack(_ header: UInt8, _ id: UInt16, code: UInt8 = 0) -> [UInt8] {
        RawMQTT.packet(header, u16(id) + (code == 0 ? [] : [code]))
    }

    static func disconnect(code: UInt8 = 0, properties: Props5 = Props5()) -> [UInt8] {
        let props = properties.encoded()
        if code == 0 && props == [0] { return [0xE0, 0] }
        return RawMQTT.packet(0xE0, [code] + props)
    }
}
