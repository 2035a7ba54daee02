import Testing

@testable import HouseHomeKit

/// The encrypted session framing: frames of at most 1024 bytes, the length as AAD, counters per
/// direction; a tampered or oversized frame is an error (the connection then closes).
@Suite struct SessionCipherTests {
    static let secret = (0..<32).map { UInt8($0) }

    @Test func bothDirectionsRoundTrip() throws {
        var accessory = SessionCipher(sharedSecret: Self.secret)
        var controller = SessionCipher(sharedSecret: Self.secret, controller: true)
        for message in ["GET /accessories HTTP/1.1\r\n\r\n", "second", ""] {
            let sealed = try controller.seal(Array(message.utf8))
            #expect(try accessory.open(sealed) == Array(message.utf8))
            let answer = try accessory.seal(Array(("re: " + message).utf8))
            #expect(try controller.open(answer) == Array(("re: " + message).utf8))
        }
    }

    @Test func longMessagesGoInFramesOf1024() throws {
        var accessory = SessionCipher(sharedSecret: Self.secret)
        var controller = SessionCipher(sharedSecret: Self.secret, controller: true)
        let body = (0..<3000).map { UInt8($0 % 256) }
        let sealed = try accessory.seal(body)
        #expect(sealed.count == 3000 + 3 * (2 + 16))
        #expect(sealed[0] == 0x00 && sealed[1] == 0x04)  // 1024, little-endian
        #expect(sealed[2 + 1024 + 16] == 0x00 && sealed[2 + 1024 + 16 + 1] == 0x04)
        let last = 2 * (2 + 1024 + 16)
        #expect(Int(sealed[last]) | Int(sealed[last + 1]) << 8 == 952)
        // Fed a byte at a time, it comes out whole.
        var out: [UInt8] = []
        for byte in sealed { out += try controller.open([byte]) }
        #expect(out == body)
    }

    @Test func aTamperedFrameIsRefused() throws {
        var controller = SessionCipher(sharedSecret: Self.secret, controller: true)
        let sealed = try controller.seal(Array("PUT /characteristics HTTP/1.1\r\n\r\n".utf8))
        for index in [0, 5, sealed.count - 1] {
            var accessory = SessionCipher(sharedSecret: Self.secret)
            var bad = sealed
            bad[index] ^= 0x01
            #expect(throws: HomeKitError.self) { _ = try accessory.open(bad) }
        }
        // A frame replayed out of order (its counter is past): refused.
        var accessory = SessionCipher(sharedSecret: Self.secret)
        _ = try accessory.open(sealed)
        #expect(throws: HomeKitError.badFrame(reason: "authentication failed")) { _ = try accessory.open(sealed) }
    }

    @Test func anOversizedFrameIsRefused() {
        var accessory = SessionCipher(sharedSecret: Self.secret)
        #expect(throws: HomeKitError.badFrame(reason: "frame of 1025 bytes, at most 1024")) { _ = try accessory.open([0x01, 0x04]) }
    }
}
