import HouseCore
import Testing

@testable import HouseHomeKit

/// TLV8: items, values over 255 bytes in fragments, lists with separators, and a decoder that
/// answers any input with items or a diagnostic.
@Suite struct TLV8Tests {
    @Test func itemsRoundTrip() throws {
        var tlv = TLV8()
        tlv.append(.state, byte: 1)
        tlv.append(.method, byte: 0)
        tlv.append(.identifier, Array("controller".utf8))
        tlv.append(.signature, [])
        let bytes = tlv.encoded()
        #expect(bytes.prefix(6) == [0x06, 1, 1, 0x00, 1, 0])
        let back = try TLV8.decode(bytes)
        #expect(back == tlv)
        #expect(back.byte(.state) == 1)
        #expect(back[.identifier] == Array("controller".utf8))
        #expect(back[.signature] == [])
        #expect(back[.proof] == nil)
    }

    @Test func longValuesGoInFragments() throws {
        let key = (0..<384).map { UInt8($0 % 251) }
        var tlv = TLV8()
        tlv.append(.publicKey, key)
        tlv.append(.state, byte: 2)
        let bytes = tlv.encoded()
        // 255 bytes, then the other 129, each under the same type; then the state.
        #expect(bytes.count == 2 + 255 + 2 + 129 + 3)
        #expect(bytes[0] == 0x03 && bytes[1] == 255)
        #expect(bytes[257] == 0x03 && bytes[258] == 129)
        let back = try TLV8.decode(bytes)
        #expect(back[.publicKey] == key)
        #expect(back.items.count == 2)
        // Exactly 255 bytes is one item, and 510 two full fragments.
        for n in [255, 510] {
            var t = TLV8()
            t.append(.encryptedData, [UInt8](repeating: 7, count: n))
            #expect(try TLV8.decode(t.encoded())[.encryptedData]?.count == n)
        }
    }

    /// Found by the fuzzer: a full fragment, an empty one, then another item of the type: two
    /// items, which must come back as two.
    @Test func aFullValueBeforeAnotherOfItsType() throws {
        let input: [UInt8] = [0x01, 255] + [UInt8](repeating: 1, count: 255) + [0x01, 0, 0x01, 2, 9, 9]
        let tlv = try TLV8.decode(input)
        #expect(tlv.items.map(\.value.count) == [255, 2])
        #expect(try TLV8.decode(tlv.encoded()) == tlv)
    }

    @Test func listsSplitAtSeparators() throws {
        var tlv = TLV8()
        tlv.append(.state, byte: 2)
        tlv.append(.identifier, Array("a".utf8))
        tlv.append(.permissions, byte: 1)
        tlv.append(.separator, [])
        tlv.append(.identifier, Array("b".utf8))
        tlv.append(.permissions, byte: 0)
        let entries = try TLV8.decode(tlv.encoded()).split()
        #expect(entries.count == 2)
        #expect(entries[1][.identifier] == Array("b".utf8))
        #expect(entries[1].byte(.permissions) == 0)
    }

    @Test func malformedInputIsTold() throws {
        #expect(throws: HomeKitError.malformedTLV(offset: 3, reason: "item of type 1 says 5 bytes, 2 left")) {
            try TLV8.decode([0x06, 1, 1, 0x01, 5, 0x61, 0x62])
        }
        #expect(throws: HomeKitError.malformedTLV(offset: 0, reason: "a type byte with no length")) {
            try TLV8.decode([0x06])
        }
        #expect(try TLV8.decode([]).items.isEmpty)
    }

    /// Any bytes: items or an error, never a trap (a seeded run of random messages).
    @Test func decodingIsTotal() throws {
        var rng = SeededJitterGenerator(seed: 64)
        for _ in 0..<5000 {
            let bytes = (0..<Int(rng.next() % 600)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            if let tlv = try? TLV8.decode(bytes) {
                // What decodes re-encodes to something that decodes to the same.
                #expect(try TLV8.decode(tlv.encoded()) == tlv)
            }
        }
    }
}
