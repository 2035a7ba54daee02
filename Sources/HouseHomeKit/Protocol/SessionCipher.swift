import Crypto
import Foundation

/// The encrypted framing of a verified HAP session: each frame is a 2-byte little-endian length
/// (at most 1024), that many bytes of ChaCha20-Poly1305 ciphertext and a 16-byte tag; the length
/// is the additional authenticated data; the nonce is a 64-bit little-endian counter per direction
/// after four zero bytes. A frame that fails its tag (or claims more than 1024 bytes) is an error,
/// and the connection is closed: there is no recovering a stream whose counter is in doubt.
public struct SessionCipher: Sendable {
    public static let maxFrame = 1024
    static let tagLength = 16

    private let readKey: SymmetricKey
    private let writeKey: SymmetricKey
    private var readCounter: UInt64 = 0
    private var writeCounter: UInt64 = 0
    private var inbound: [UInt8] = []

    /// `decryptKey` opens what the peer sends, `encryptKey` seals what we send (for the
    /// accessory: Control-Write and Control-Read respectively).
    public init(decryptKey: [UInt8], encryptKey: [UInt8]) {
        readKey = SymmetricKey(data: decryptKey)
        writeKey = SymmetricKey(data: encryptKey)
    }

    /// The keys of a session from the pair-verify shared secret, for the accessory's side
    /// (`controller: true` gives the controller's side, for tests and tools).
    public init(sharedSecret: [UInt8], controller: Bool = false) {
        let write = HKDFLabel.derive(sharedSecret, salt: "Control-Salt", info: "Control-Write-Encryption-Key")
        let read = HKDFLabel.derive(sharedSecret, salt: "Control-Salt", info: "Control-Read-Encryption-Key")
        self.init(decryptKey: controller ? read : write, encryptKey: controller ? write : read)
    }

    /// `plaintext` sealed as one or more frames.
    public mutating func seal(_ plaintext: [UInt8]) throws(HomeKitError) -> [UInt8] {
        var out: [UInt8] = []
        var rest = plaintext[...]
        repeat {
            let chunk = rest.prefix(Self.maxFrame)
            rest = rest.dropFirst(chunk.count)
            let aad: [UInt8] = [UInt8(chunk.count & 0xFF), UInt8(chunk.count >> 8)]
            do {
                let box = try ChaChaPoly.seal(chunk, using: writeKey, nonce: Self.nonce(writeCounter), authenticating: aad)
                out += aad
                out += box.ciphertext
                out += box.tag
            } catch {
                throw .crypto("sealing a frame failed")
            }
            writeCounter &+= 1
        } while !rest.isEmpty
        return out
    }

    /// Feeds bytes from the socket; returns the plaintext of every complete frame so far.
    public mutating func open(_ bytes: some Sequence<UInt8>) throws(HomeKitError) -> [UInt8] {
        inbound.append(contentsOf: bytes)
        var out: [UInt8] = []
        var start = 0
        while inbound.count - start >= 2 {
            let length = Int(inbound[start]) | Int(inbound[start + 1]) << 8
            guard length <= Self.maxFrame else { throw .badFrame(reason: "frame of \(length) bytes, at most \(Self.maxFrame)") }
            let total = 2 + length + Self.tagLength
            guard inbound.count - start >= total else { break }
            let aad = inbound[start..<(start + 2)]
            let ciphertext = inbound[(start + 2)..<(start + 2 + length)]
            let tag = inbound[(start + 2 + length)..<(start + total)]
            do {
                let box = try ChaChaPoly.SealedBox(nonce: Self.nonce(readCounter), ciphertext: ciphertext, tag: tag)
                out += try ChaChaPoly.open(box, using: readKey, authenticating: aad)
            } catch {
                throw .badFrame(reason: "authentication failed")
            }
            readCounter &+= 1
            start += total
        }
        inbound.removeFirst(start)
        return out
    }

    static func nonce(_ counter: UInt64) -> ChaChaPoly.Nonce {
        var bytes = [UInt8](repeating: 0, count: 12)
        for i in 0..<8 { bytes[4 + i] = UInt8((counter >> (8 * UInt64(i))) & 0xFF) }
        return try! ChaChaPoly.Nonce(data: bytes)  // 12 bytes: always a valid nonce
    }
}
