/// HAP's TLV8: a list of items, each a type byte, a length byte and up to 255 bytes of value. A
/// longer value is sent as consecutive fragments of the same type; a zero-length separator
/// (type 0xFF) splits lists of like items (the pairings list). Decoding is total: it never
/// traps on any input, joins fragments, and says where and why a message is malformed.
public struct TLV8: Sendable, Equatable {
    /// The items in order, each with its whole value (fragments joined).
    public var items: [(type: UInt8, value: [UInt8])]

    public init(_ items: [(type: UInt8, value: [UInt8])] = []) {
        self.items = items
    }

    public static func == (a: TLV8, b: TLV8) -> Bool {
        a.items.count == b.items.count && zip(a.items, b.items).allSatisfy { $0.type == $1.type && $0.value == $1.value }
    }

    /// Appends an item.
    public mutating func append(_ type: TLVType, _ value: [UInt8]) {
        items.append((type.rawValue, value))
    }

    /// Appends a one-byte item (a state, a method, an error).
    public mutating func append(_ type: TLVType, byte: UInt8) {
        items.append((type.rawValue, [byte]))
    }

    /// The first item of `type`, if any.
    public subscript(_ type: TLVType) -> [UInt8]? {
        items.first { $0.type == type.rawValue }?.value
    }

    /// The first item of `type` as one byte: nil when missing or not one byte long.
    public func byte(_ type: TLVType) -> UInt8? {
        guard let v = self[type], v.count == 1 else { return nil }
        return v[0]
    }

    /// The wire form: values over 255 bytes split into fragments; an empty value is one empty item.
    /// A value of a multiple of 255 bytes followed by an item of its type ends with an empty
    /// fragment, or the next item would read as more of it.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(items.reduce(0) { $0 + $1.value.count + 2 })
        for (index, item) in items.enumerated() {
            var rest = item.value[...]
            repeat {
                let chunk = rest.prefix(255)
                out.append(item.type)
                out.append(UInt8(chunk.count))
                out.append(contentsOf: chunk)
                rest = rest.dropFirst(chunk.count)
            } while !rest.isEmpty
            if !item.value.isEmpty, item.value.count % 255 == 0, index + 1 < items.count, items[index + 1].type == item.type {
                out += [item.type, 0]
            }
        }
        return out
    }

    /// Reads a message. Consecutive items of one type join into one value when each but the last
    /// is 255 bytes long (a fragmented value); a separator between them keeps them apart.
    public static func decode(_ bytes: some Collection<UInt8>) throws(HomeKitError) -> TLV8 {
        let b = Array(bytes)
        var items: [(type: UInt8, value: [UInt8])] = []
        var i = 0
        var lastWasFull = false
        while i < b.count {
            guard i + 1 < b.count else { throw .malformedTLV(offset: i, reason: "a type byte with no length") }
            let type = b[i], length = Int(b[i + 1])
            guard i + 2 + length <= b.count else {
                throw .malformedTLV(offset: i, reason: "item of type \(type) says \(length) bytes, \(b.count - i - 2) left")
            }
            let value = b[(i + 2)..<(i + 2 + length)]
            if lastWasFull, let last = items.last, last.type == type {
                items[items.count - 1].value.append(contentsOf: value)
            } else {
                items.append((type, Array(value)))
            }
            lastWasFull = length == 255
            i += 2 + length
        }
        return TLV8(items)
    }

    /// Splits a list at its separators (0xFF): one message per entry.
    public func split() -> [TLV8] {
        var out: [TLV8] = [TLV8()]
        for item in items {
            if item.type == TLVType.separator.rawValue { out.append(TLV8()) } else { out[out.count - 1].items.append(item) }
        }
        return out.filter { !$0.items.isEmpty }
    }
}

/// The TLV types of pairing (HAP's table 5-6).
public enum TLVType: UInt8, Sendable, CaseIterable {
    case method = 0x00, identifier = 0x01, salt = 0x02, publicKey = 0x03, proof = 0x04
    case encryptedData = 0x05, state = 0x06, error = 0x07, retryDelay = 0x08, certificate = 0x09
    case signature = 0x0A, permissions = 0x0B, fragmentData = 0x0C, fragmentLast = 0x0D
    case sessionID = 0x0E, flags = 0x13, separator = 0xFF
}

/// The error codes a pairing answer carries (HAP's table 5-5).
public enum TLVErrorCode: UInt8, Sendable {
    case unknown = 0x01
    /// The setup code or a signature was wrong.
    case authentication = 0x02
    case backoff = 0x03
    /// No room for another pairing.
    case maxPeers = 0x04
    /// Too many unsuccessful pair-setup attempts: the accessory refuses pairing until reset.
    case maxTries = 0x05
    /// Already paired: pair-setup is refused.
    case unavailable = 0x06
    /// Another pair-setup is in progress.
    case busy = 0x07
}

/// The pairing methods (HAP's table 5-4).
public enum PairingMethod: UInt8, Sendable {
    case pairSetup = 0, pairSetupWithAuth = 1, pairVerify = 2, addPairing = 3, removePairing = 4, listPairings = 5
}
