import Crypto
import Foundation

/// HAP's key derivations: HKDF-SHA512 with a salt and an info string per purpose
/// ("Pair-Setup-Encrypt-Salt", "Control-Salt", ...), 32 bytes out.
package enum HKDFLabel {
    package static func derive(_ secret: [UInt8], salt: String, info: String, count: Int = 32) -> [UInt8] {
        let key = HKDF<SHA512>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: secret), salt: Array(salt.utf8), info: Array(info.utf8), outputByteCount: count)
        return key.withUnsafeBytes { Array($0) }
    }

    /// ChaCha20-Poly1305 of a pairing message's sub-TLV: nonce "PS-Msg05" and the like, after
    /// four zero bytes; the tag is appended to the ciphertext.
    package static func seal(_ plaintext: [UInt8], key: [UInt8], nonce label: String) throws(HomeKitError) -> [UInt8] {
        do {
            let box = try ChaChaPoly.seal(plaintext, using: SymmetricKey(data: key), nonce: nonce(label))
            return Array(box.ciphertext) + Array(box.tag)
        } catch {
            throw .crypto("sealing \(label) failed")
        }
    }

    /// Opens what `seal` made; nil when the tag does not verify.
    package static func open(_ sealed: [UInt8], key: [UInt8], nonce label: String) -> [UInt8]? {
        guard sealed.count >= 16 else { return nil }
        guard let box = try? ChaChaPoly.SealedBox(nonce: nonce(label), ciphertext: sealed.dropLast(16), tag: sealed.suffix(16)) else { return nil }
        return (try? ChaChaPoly.open(box, using: SymmetricKey(data: key))).map { Array($0) }
    }

    static func nonce(_ label: String) -> ChaChaPoly.Nonce {
        try! ChaChaPoly.Nonce(data: [0, 0, 0, 0] + Array(label.utf8.prefix(8)))  // 4 + 8 bytes: always valid
    }
}
