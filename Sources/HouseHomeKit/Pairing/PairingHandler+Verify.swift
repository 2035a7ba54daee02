import Crypto
import Foundation

extension PairingHandler {
    /// Where one connection's pair-verify is.
    public enum VerifyState: Sendable {
        case idle
        /// M2 sent: the shared secret and both ephemeral keys wait for the controller's proof.
        case started(sharedSecret: [UInt8], accessoryKey: [UInt8], controllerKey: [UInt8], sessionKey: [UInt8])
    }

    /// A verified session: the controller it is, and the ciphers for the rest of the connection.
    public struct Verified: Sendable {
        public var controllerID: String
        public var cipher: SessionCipher
    }

    /// One step of pair-verify (`POST /pair-verify`); after M4 the connection is encrypted with
    /// `Verified.cipher` (the M4 answer itself still goes out in the clear).
    public func pairVerify(_ request: TLV8, state: inout VerifyState) throws(HomeKitError) -> (TLV8, Verified?) {
        switch request.byte(.state) {
        case 1:
            guard let controllerKey = request[.publicKey], let peer = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: controllerKey) else {
                state = .idle
                return (Self.answer(state: 2, error: .unknown), nil)
            }
            let ephemeral = Curve25519.KeyAgreement.PrivateKey()
            guard let secret = try? ephemeral.sharedSecretFromKeyAgreement(with: peer) else {
                return (Self.answer(state: 2, error: .authentication), nil)
            }
            let shared = secret.withUnsafeBytes { Array($0) }
            let accessoryKey = Array(ephemeral.publicKey.rawRepresentation)
            let accessoryID = Array(identity.pairingID.utf8)
            var sub = TLV8()
            sub.append(.identifier, accessoryID)
            sub.append(.signature, try identity.sign(accessoryKey + accessoryID + controllerKey))
            let sessionKey = HKDFLabel.derive(shared, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
            state = .started(sharedSecret: shared, accessoryKey: accessoryKey, controllerKey: controllerKey, sessionKey: sessionKey)
            var answer = TLV8()
            answer.append(.state, byte: 2)
            answer.append(.publicKey, accessoryKey)
            answer.append(.encryptedData, try HKDFLabel.seal(sub.encoded(), key: sessionKey, nonce: "PV-Msg02"))
            return (answer, nil)
        case 3:
            guard case .started(let shared, let accessoryKey, let controllerKey, let sessionKey) = state else {
                return (Self.answer(state: 4, error: .unknown), nil)
            }
            state = .idle
            guard let sealed = request[.encryptedData],
                  let plain = HKDFLabel.open(sealed, key: sessionKey, nonce: "PV-Msg03"),
                  let sub = try? TLV8.decode(plain),
                  let id = sub[.identifier], let signature = sub[.signature],
                  let controllerID = String(validating: id, as: UTF8.self),
                  let pairing = store.pairing(id: controllerID),
                  let ltpk = try? Curve25519.Signing.PublicKey(rawRepresentation: pairing.publicKey),
                  ltpk.isValidSignature(signature, for: controllerKey + id + accessoryKey) else {
                return (Self.answer(state: 4, error: .authentication), nil)
            }
            var answer = TLV8()
            answer.append(.state, byte: 4)
            return (answer, Verified(controllerID: controllerID, cipher: SessionCipher(sharedSecret: shared)))
        default:
            state = .idle
            return (Self.answer(state: (request.byte(.state) ?? 0) &+ 1, error: .unknown), nil)
        }
    }
}
