import NIOCore

/// The MQTT data representations (section 1.5 of MQTT 5, 1.5 of 3.1.1) written and read on a
/// `ByteBuffer`: variable byte integers, length-prefixed strings and binary data.
extension ByteBuffer {
    /// Writes `value` (0...268,435,455) as a variable byte integer, in as few bytes as it takes.
    mutating func writeVariableByteInteger(_ value: Int) {
        var value = value
        repeat {
            var byte = UInt8(value % 128)
            value /= 128
            if value > 0 { byte |= 0x80 }
            writeInteger(byte)
        } while value > 0
    }

    /// The bytes `value` takes as a variable byte integer.
    static func variableByteIntegerLength(_ value: Int) -> Int {
        switch value {
        case ..<128: 1
        case ..<16_384: 2
        case ..<2_097_152: 3
        default: 4
        }
    }

    /// Reads a variable byte integer. Throws `malformedPacket` when it is truncated, longer than
    /// four bytes, or not in its shortest form (MQTT-1.5.5-1).
    mutating func readVariableByteInteger(_ what: String) throws -> Int {
        var value = 0
        var multiplier = 1
        for position in 0..<4 {
            guard let byte = readInteger(as: UInt8.self) else {
                throw HouseBrokerError.malformedPacket("\(what) truncated")
            }
            value += Int(byte & 0x7F) * multiplier
            if byte & 0x80 == 0 {
                if position > 0 && byte == 0 {
                    throw HouseBrokerError.malformedPacket("\(what) is not in its shortest form (MQTT-1.5.5-1)")
                }
                return value
            }
            multiplier *= 128
        }
        throw HouseBrokerError.malformedPacket("\(what) longer than 4 bytes")
    }

    /// Writes a UTF-8 string with its two-byte length (at most 65,535 bytes).
    mutating func writeMQTTString(_ string: String) {
        writeInteger(UInt16(string.utf8.count))
        writeString(string)
    }

    /// Writes binary data with its two-byte length (at most 65,535 bytes).
    mutating func writeMQTTBinary(_ bytes: [UInt8]) {
        writeInteger(UInt16(bytes.count))
        writeBytes(bytes)
    }
}
