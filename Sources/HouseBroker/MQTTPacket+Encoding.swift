import NIOCore

extension MQTTPacket {
    /// Appends the wire form of this packet for a client speaking `version` to `buffer`.
    func encode(into buffer: inout ByteBuffer, version: MQTTProtocolVersion) {
        if version == .v5 { return encodeV5(into: &buffer) }
        switch self {
        case .connack(let connack):
            // MQTT 3.1 has no session-present flag: the byte is reserved.
            buffer.writeBytes([0x20, 2, connack.sessionPresent && version == .v311 ? 1 : 0, connack.returnCode.rawValue])
        case .publish(let p):
            let topicLength = p.topic.utf8.count
            let remaining = 2 + topicLength + (p.qos == .atMostOnce ? 0 : 2) + p.payload.readableBytes
            buffer.writeInteger(p.fixedHeaderByte)
            buffer.writeVariableByteInteger(remaining)
            buffer.writeInteger(UInt16(topicLength))
            buffer.writeString(p.topic)
            if p.qos != .atMostOnce { buffer.writeInteger(p.packetID) }
            buffer.writeImmutableBuffer(p.payload)
        case .puback(let id, _): Self.writeIDPacket(0x40, id, into: &buffer)
        case .pubrec(let id, _): Self.writeIDPacket(0x50, id, into: &buffer)
        case .pubrel(let id, _): Self.writeIDPacket(0x62, id, into: &buffer)
        case .pubcomp(let id, _): Self.writeIDPacket(0x70, id, into: &buffer)
        case .suback(let id, let codes):
            buffer.writeInteger(UInt8(0x90))
            buffer.writeVariableByteInteger(2 + codes.count)
            buffer.writeInteger(id)
            // MQTT 3.1.1 has one failure code, 0x80.
            for code in codes { buffer.writeInteger(code.isFailure ? 0x80 : code.rawValue) }
        case .unsuback(let id, _): Self.writeIDPacket(0xB0, id, into: &buffer)
        case .pingresp: buffer.writeBytes([0xD0, 0])
        case .disconnect:
            break  // MQTT 3.1.1 has no DISCONNECT from the server: the connection is just closed.
        case .connect, .subscribe, .unsubscribe, .pingreq, .auth:
            preconditionFailure("the broker never sends \(name)")
        }
    }

    /// The MQTT 5 forms (section 3): reason codes and properties.
    private func encodeV5(into buffer: inout ByteBuffer) {
        switch self {
        case .connack(let connack):
            buffer.writeInteger(UInt8(0x20))
            buffer.writeVariableByteInteger(2 + connack.properties.encodedBlockLength)
            buffer.writeInteger(UInt8(connack.sessionPresent ? 1 : 0))
            buffer.writeInteger(connack.reasonCode.rawValue)
            connack.properties.writeBlock(into: &buffer)
        case .publish(let p):
            let propertiesLength = p.v5PropertiesLength
            buffer.writeInteger(p.fixedHeaderByte)
            buffer.writeVariableByteInteger(p.v5RemainingLength(propertiesLength: propertiesLength))
            buffer.writeMQTTString(p.topic)
            if p.qos != .atMostOnce { buffer.writeInteger(p.packetID) }
            buffer.writeVariableByteInteger(propertiesLength)
            if let properties = p.properties { buffer.writeImmutableBuffer(properties.encodedForwarded) }
            if let expiry = p.messageExpiryInterval {
                buffer.writeInteger(MQTTPropertyIdentifier.messageExpiryInterval.rawValue)
                buffer.writeInteger(expiry)
            }
            if let alias = p.topicAlias {
                buffer.writeInteger(MQTTPropertyIdentifier.topicAlias.rawValue)
                buffer.writeInteger(alias)
            }
            for identifier in p.subscriptionIdentifiers {
                buffer.writeInteger(MQTTPropertyIdentifier.subscriptionIdentifier.rawValue)
                buffer.writeVariableByteInteger(identifier)
            }
            buffer.writeImmutableBuffer(p.payload)
        case .puback(let id, let code): Self.writeAck(0x40, id, code, into: &buffer)
        case .pubrec(let id, let code): Self.writeAck(0x50, id, code, into: &buffer)
        case .pubrel(let id, let code): Self.writeAck(0x62, id, code, into: &buffer)
        case .pubcomp(let id, let code): Self.writeAck(0x70, id, code, into: &buffer)
        case .suback(let id, let codes): Self.writeCodes(0x90, id, codes, into: &buffer)
        case .unsuback(let id, let codes): Self.writeCodes(0xB0, id, codes, into: &buffer)
        case .pingresp: buffer.writeBytes([0xD0, 0])
        case .disconnect(let disconnect):
            buffer.writeInteger(UInt8(0xE0))
            if disconnect.reasonCode == .success && disconnect.properties.isEmpty {
                buffer.writeInteger(UInt8(0))
                return
            }
            buffer.writeVariableByteInteger(1 + disconnect.properties.encodedBlockLength)
            buffer.writeInteger(disconnect.reasonCode.rawValue)
            disconnect.properties.writeBlock(into: &buffer)
        case .connect, .subscribe, .unsubscribe, .pingreq, .auth:
            preconditionFailure("the broker never sends \(name)")
        }
    }

    /// The bytes of the whole packet (fixed header included) as written for `version`.
    func encodedSize(version: MQTTProtocolVersion) -> Int {
        if version == .v5, case .publish(let p) = self {
            let remaining = p.v5RemainingLength(propertiesLength: p.v5PropertiesLength)
            return 1 + ByteBuffer.variableByteIntegerLength(remaining) + remaining
        }
        var buffer = ByteBufferAllocator().buffer(capacity: 16)
        encode(into: &buffer, version: version)
        return buffer.readableBytes
    }

    private static func writeIDPacket(_ header: UInt8, _ id: UInt16, into buffer: inout ByteBuffer) {
        buffer.writeInteger(header)
        buffer.writeInteger(UInt8(2))
        buffer.writeInteger(id)
    }

    /// An MQTT 5 acknowledgement: the short form for success (MQTT 5 section 3.4.2.1), else the
    /// reason code without properties.
    private static func writeAck(_ header: UInt8, _ id: UInt16, _ code: MQTTReasonCode, into buffer: inout ByteBuffer) {
        if code == .success { return writeIDPacket(header, id, into: &buffer) }
        buffer.writeInteger(header)
        buffer.writeInteger(UInt8(3))
        buffer.writeInteger(id)
        buffer.writeInteger(code.rawValue)
    }

    /// An MQTT 5 SUBACK or UNSUBACK: packet id, no properties, a code per filter.
    private static func writeCodes(_ header: UInt8, _ id: UInt16, _ codes: [MQTTReasonCode], into buffer: inout ByteBuffer) {
        buffer.writeInteger(header)
        buffer.writeVariableByteInteger(3 + codes.count)
        buffer.writeInteger(id)
        buffer.writeInteger(UInt8(0))
        for code in codes { buffer.writeInteger(code.rawValue) }
    }
}

extension PublishPacket {
    var fixedHeaderByte: UInt8 {
        var header: UInt8 = 0x30 | (qos.rawValue << 1)
        if dup { header |= 0x08 }
        if retain { header |= 0x01 }
        return header
    }

    /// The bytes of the MQTT 5 properties (without their length).
    var v5PropertiesLength: Int {
        var length = properties?.encodedForwarded.readableBytes ?? 0
        if messageExpiryInterval != nil { length += 5 }
        if topicAlias != nil { length += 3 }
        for identifier in subscriptionIdentifiers { length += 1 + ByteBuffer.variableByteIntegerLength(identifier) }
        return length
    }

    func v5RemainingLength(propertiesLength: Int) -> Int {
        2 + topic.utf8.count + (qos == .atMostOnce ? 0 : 2)
            + ByteBuffer.variableByteIntegerLength(propertiesLength) + propertiesLength + payload.readableBytes
    }
}
