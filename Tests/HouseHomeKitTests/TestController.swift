import BigInt
import Crypto
import Foundation

@testable import HouseHomeKit

/// The controller's side of pair-setup and pair-verify, written from HAP's description for the
/// tests (the end-to-end test pairs with aiohomekit itself).
/// How a test controller's pair-verify ended.
enum VerifyOutcome {
    case verified(SessionCipher)
    case refused(TLVErrorCode)
}

struct TestController {
    let id: String
    let key = Curve25519.Signing.PrivateKey()

    init(id: String = "test-controller") {
        self.id = id
    }

    /// Runs M1-M6 on `handler` with `code`; returns the last answer (an error or M6).
    func pairSetup(_ handler: PairingHandler, code: String, connection: Int = 1) throws -> TLV8 {
        var state = PairingHandler.SetupState.idle
        var m1 = TLV8()
        m1.append(.state, byte: 1)
        m1.append(.method, byte: 0)
        let m2 = try handler.pairSetup(m1, state: &state, connection: connection)
        guard m2.byte(.error) == nil, let salt = m2[.salt], let bBytes = m2[.publicKey] else { return m2 }
        let group = SRPGroup.hap
        let a = BigUInt(Data(PairingHandler.random(32)))
        let A = group.g.power(a, modulus: group.N)
        let B = BigUInt(Data(bBytes))
        let u = BigUInt(Data(group.hash(group.pad(A) + group.pad(B))))
        let x = BigUInt(Data(group.hash(salt + group.hash(Array("Pair-Setup:\(code)".utf8)))))
        let kv = group.k * group.g.power(x, modulus: group.N) % group.N
        let S = ((B + group.N - kv) % group.N).power(a + u * x, modulus: group.N)
        let K = group.hash(group.pad(S))
        let hN = group.hash([UInt8](group.N.serialize())), hg = group.hash([UInt8](group.g.serialize()))
        let M1 = group.hash(zip(hN, hg).map { $0 ^ $1 } + group.hash(Array("Pair-Setup".utf8)) + salt + group.pad(A) + group.pad(B) + K)
        var m3 = TLV8()
        m3.append(.state, byte: 3)
        m3.append(.publicKey, group.pad(A))
        m3.append(.proof, M1)
        let m4 = try handler.pairSetup(m3, state: &state, connection: connection)
        guard m4.byte(.error) == nil else { return m4 }
        guard m4[.proof] == group.hash(group.pad(A) + M1 + K) else { throw HomeKitError.crypto("accessory proof") }
        let encryptKey = HKDFLabel.derive(K, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info")
        let x2 = HKDFLabel.derive(K, salt: "Pair-Setup-Controller-Sign-Salt", info: "Pair-Setup-Controller-Sign-Info")
        let ltpk = Array(key.publicKey.rawRepresentation)
        var sub = TLV8()
        sub.append(.identifier, Array(id.utf8))
        sub.append(.publicKey, ltpk)
        sub.append(.signature, Array(try key.signature(for: x2 + Array(id.utf8) + ltpk)))
        var m5 = TLV8()
        m5.append(.state, byte: 5)
        m5.append(.encryptedData, try HKDFLabel.seal(sub.encoded(), key: encryptKey, nonce: "PS-Msg05"))
        let m6 = try handler.pairSetup(m5, state: &state, connection: connection)
        guard m6.byte(.error) == nil else { return m6 }
        let sealed6 = try #require(m6[.encryptedData])
        let plain = try #require(HKDFLabel.open(sealed6, key: encryptKey, nonce: "PS-Msg06"))
        let reply = try TLV8.decode(plain)
        let accessoryX = HKDFLabel.derive(K, salt: "Pair-Setup-Accessory-Sign-Salt", info: "Pair-Setup-Accessory-Sign-Info")
        let ltpk6 = try #require(reply[.publicKey]), signature6 = try #require(reply[.signature]), id6 = try #require(reply[.identifier])
        let accessoryKey = try Curve25519.Signing.PublicKey(rawRepresentation: ltpk6)
        guard accessoryKey.isValidSignature(signature6, for: accessoryX + id6 + ltpk6) else {
            throw HomeKitError.crypto("accessory signature")
        }
        return m6
    }

    /// Runs pair-verify M1-M4 on `handler`; returns the controller's session cipher, or the error code.
    func pairVerify(_ handler: PairingHandler) async throws -> VerifyOutcome {
        var state = PairingHandler.VerifyState.idle
        return try await pairVerify(accessoryKey: handler.identity.publicKey) { try handler.pairVerify($0, state: &state).0 }
    }

    /// Runs pair-verify M1-M4 through `send` (a request's TLV in, the answer's out).
    func pairVerify(accessoryKey: [UInt8], send: (TLV8) async throws -> TLV8) async throws -> VerifyOutcome {
        let ephemeral = Curve25519.KeyAgreement.PrivateKey()
        let mine = Array(ephemeral.publicKey.rawRepresentation)
        var m1 = TLV8()
        m1.append(.state, byte: 1)
        m1.append(.publicKey, mine)
        let m2 = try await send(m1)
        let theirs = try #require(m2[.publicKey])
        let shared = try ephemeral.sharedSecretFromKeyAgreement(with: .init(rawRepresentation: theirs)).withUnsafeBytes { Array($0) }
        let sessionKey = HKDFLabel.derive(shared, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
        let sealed2 = try #require(m2[.encryptedData])
        let sub2 = try TLV8.decode(try #require(HKDFLabel.open(sealed2, key: sessionKey, nonce: "PV-Msg02")))
        let accessoryID = try #require(sub2[.identifier])
        guard (try? Curve25519.Signing.PublicKey(rawRepresentation: accessoryKey))?
            .isValidSignature(sub2[.signature] ?? [], for: theirs + accessoryID + mine) == true else {
            throw HomeKitError.crypto("accessory's verify signature")
        }
        var sub3 = TLV8()
        sub3.append(.identifier, Array(id.utf8))
        sub3.append(.signature, Array(try key.signature(for: mine + Array(id.utf8) + theirs)))
        var m3 = TLV8()
        m3.append(.state, byte: 3)
        m3.append(.encryptedData, try HKDFLabel.seal(sub3.encoded(), key: sessionKey, nonce: "PV-Msg03"))
        let m4 = try await send(m3)
        if let code = m4.byte(.error) { return .refused(TLVErrorCode(rawValue: code) ?? .unknown) }
        return .verified(SessionCipher(sharedSecret: shared, controller: true))
    }
}

import Testing
