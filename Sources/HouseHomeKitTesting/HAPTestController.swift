import BigInt
import Crypto
import Foundation
import HouseHomeKit

/// The controller's side of pair-setup and pair-verify, written from HAP's description for the
/// tests and the bench (the end-to-end tests pair with aiohomekit itself): its pairing id and
/// long-term Ed25519 key, the SRP-6a client, the verify's X25519 exchange. Each step goes through
/// `send` (a request's TLV8 in, the accessory's answer out): a handler called directly, or a
/// socket (`HAPTestSession`).
public struct HAPTestController: Sendable {
    /// How a pair-setup ended.
    public enum SetupOutcome: Sendable, Equatable {
        /// Paired: the accessory's pairing id and long-term public key, its signature checked.
        case paired(accessoryID: String, accessoryKey: [UInt8])
        /// Refused at step `state` with `error`.
        case refused(state: UInt8, error: TLVErrorCode)
    }

    /// How a pair-verify ended.
    public enum VerifyOutcome: Sendable {
        /// Verified: the controller's side of the session.
        case verified(SessionCipher)
        case refused(TLVErrorCode)
    }

    public let id: String
    public let key: Curve25519.Signing.PrivateKey

    public init(id: String = "test-controller", key: Curve25519.Signing.PrivateKey = .init()) {
        self.id = id
        self.key = key
    }

    /// M1 to M6 with `code`.
    public func pairSetup(code: String, send: (TLV8) async throws -> TLV8) async throws -> SetupOutcome {
        var m1 = TLV8()
        m1.append(.state, byte: 1)
        m1.append(.method, byte: 0)
        let m2 = try await send(m1)
        if let refusal = Self.refusal(m2) { return refusal }
        let salt = try Self.require(m2[.salt], "M2's salt"), bBytes = try Self.require(m2[.publicKey], "M2's key")
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
        let m4 = try await send(m3)
        if let refusal = Self.refusal(m4) { return refusal }
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
        let m6 = try await send(m5)
        if let refusal = Self.refusal(m6) { return refusal }
        let plain = try Self.require(HKDFLabel.open(try Self.require(m6[.encryptedData], "M6's data"), key: encryptKey, nonce: "PS-Msg06"), "M6 opened")
        let reply = try TLV8.decode(plain)
        let accessoryX = HKDFLabel.derive(K, salt: "Pair-Setup-Accessory-Sign-Salt", info: "Pair-Setup-Accessory-Sign-Info")
        let ltpk6 = try Self.require(reply[.publicKey], "M6's key"), signature6 = try Self.require(reply[.signature], "M6's signature")
        let id6 = try Self.require(reply[.identifier], "M6's id")
        guard try Curve25519.Signing.PublicKey(rawRepresentation: ltpk6).isValidSignature(signature6, for: accessoryX + id6 + ltpk6) else {
            throw HomeKitError.crypto("accessory signature")
        }
        return .paired(accessoryID: String(decoding: id6, as: UTF8.self), accessoryKey: ltpk6)
    }

    /// Pair-setup with `handler` directly, as the connection `connection`.
    public func pairSetup(_ handler: PairingHandler, code: String, connection: Int = 1) async throws -> SetupOutcome {
        var state = PairingHandler.SetupState.idle
        return try await pairSetup(code: code) { try handler.pairSetup($0, state: &state, connection: connection) }
    }

    /// M1 to M4 of pair-verify; `accessoryKey` checks the accessory's signature.
    public func pairVerify(accessoryKey: [UInt8], send: (TLV8) async throws -> TLV8) async throws -> VerifyOutcome {
        let ephemeral = Curve25519.KeyAgreement.PrivateKey()
        let mine = Array(ephemeral.publicKey.rawRepresentation)
        var m1 = TLV8()
        m1.append(.state, byte: 1)
        m1.append(.publicKey, mine)
        let m2 = try await send(m1)
        if let code = m2.byte(.error) { return .refused(TLVErrorCode(rawValue: code) ?? .unknown) }
        let theirs = try Self.require(m2[.publicKey], "M2's key")
        let shared = try ephemeral.sharedSecretFromKeyAgreement(with: .init(rawRepresentation: theirs)).withUnsafeBytes { Array($0) }
        let sessionKey = HKDFLabel.derive(shared, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
        let sealed2 = try Self.require(m2[.encryptedData], "M2's data")
        let sub2 = try TLV8.decode(try Self.require(HKDFLabel.open(sealed2, key: sessionKey, nonce: "PV-Msg02"), "M2 opened"))
        let accessoryID = try Self.require(sub2[.identifier], "M2's id")
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

    /// Pair-verify with `handler` directly.
    public func pairVerify(_ handler: PairingHandler) async throws -> VerifyOutcome {
        var state = PairingHandler.VerifyState.idle
        return try await pairVerify(accessoryKey: handler.identity.publicKey) { try handler.pairVerify($0, state: &state).0 }
    }

    static func refusal(_ answer: TLV8) -> SetupOutcome? {
        guard let code = answer.byte(.error) else { return nil }
        return .refused(state: answer.byte(.state) ?? 0, error: TLVErrorCode(rawValue: code) ?? .unknown)
    }

    static func require<T>(_ value: T?, _ what: String) throws -> T {
        guard let value else { throw HomeKitError.malformedTLV(offset: 0, reason: "no \(what)") }
        return value
    }
}
