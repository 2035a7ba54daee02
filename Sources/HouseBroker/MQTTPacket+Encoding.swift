import NIOCore

extension MQTTPacket {
    /// Appends the wire form of this packet to `buffer`.
    func encode(into buffer: inout ByteBuffer) {
        switch self {
        case .connack(let sessionPresent, let code):
            buffer.writeBytes([0x20, 2, sessionPresent ? 1 : 0, code.rawValue])
        case .publish(let p):
            var header: UInt8 = 0x30 | (p.qos.rawValue << 1)
            if p.dup { header |= 0x08 }
            if p.retain { header |= 0x01 }
            let topicLength = p.topic.utf8.count
            let remaining = 2 + topicLength + (p.qos == .atMostOnce ? 0 : 2) + p.payload.readableBytes
            buffer.writeInteger(header)
            Self.writeRemainingLength(remaining, into: &buffer)
            buffer.writeInteger(UInt16(topicLength))
            buffer.writeString(p.topic)
            if p.qos != .atMostOnce { buffer.writeInteger(p.packetID) }
            buffer.writeImmutableBuffer(p.payload)
        case .puback(let id): Self.writeIDPacket(0x40, id, into: &buffer)
        case .pubrec(let id): Self.writeIDPacket(0x50, id, into: &buffer)
        case .pubrel(let id): Self.writeIDPacket(0x62, id, into: &buffer)
        case .pubcomp(let id): Self.writeIDPacket(0x70, id, into: &buffer)
        case .suback(let id, let codes):
            buffer.writeInteger(UInt8(0x90))
            Self.writeRemainingLength(2 + codes.count, into: &buffer)
            buffer.writeInteger(id)
            buffer.writeBytes(codes)
        case .unsuback(let id): Self.writeIDPacket(0xB0, id, into: &buffer)
        case .pingresp: buffer.writeBytes([0xD0, 0])
        case .connect, .subscribe, .unsubscribe, .pingreq, .disconnect:
            preconditionFailure("the broker never sends \(name)")
        }
    }

    private static func writeIDPacket(_ header: UInt8, _ id: UInt16, into buffer: inout ByteBuffer) {
        buffer.writeInteger(header)
        buffer.writeInteger(UInt8(2))
        buffer.writeInteger(id)
    }

    static func writeRemainingLength(_ length: Int, into buffer: inout ByteBuffer) {
        var value = length
        repeat {
            var byte = UInt8(value % 128)
            value /= 128
            if value > 0 { byte |= 0x80 }
            buffer.writeInteger(byte)
        } while value > 0
    }
}
