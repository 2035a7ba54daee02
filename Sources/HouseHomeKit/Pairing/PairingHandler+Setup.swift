import Crypto
import Foundation

extension PairingHandler {
    /// Where one connection's pair-setup is.
    public enum SetupState: Sendable {
        case idle
        /// M2 sent: the SRP server waits for A and the proof.
        case started(SRPServer)
        /// M4 sent: K is known, M5 brings the controller's long-term key.
        case proven(sessionKey: [UInt8])
    }

    /// One step of pair-setup (`POST /pair-setup`) for `connection`.
    public func pairSetup(_ request: TLV8, state: inout SetupState, connection: Int) throws(HomeKitError) -> TLV8 {
        switch request.byte(.state) {
        case 1:
            state = .idle
            if store.isPaired { return Self.answer(state: 2, error: .unavailable) }
            if store.unsuccessfulAttempts >= PairingStore.maxUnsuccessfulAttempts { return Self.answer(state: 2, error: .maxTries) }
            let mine = setupOwner.withLock { owner -> Bool in
                guard owner == nil || owner == connection else { return false }
                owner = connection
                return true
            }
            guard mine else { return Self.answer(state: 2, error: .busy) }
            let srp = SRPServer(password: setupCode.text, salt: Self.random(16), privateKey: Self.random(32))
            state = .started(srp)
            var answer = TLV8()
            answer.append(.state, byte: 2)
            answer.append(.publicKey, srp.publicKey)
            answer.append(.salt, srp.salt)
            return answer
        case 3:
            guard case .started(let srp) = state, let a = request[.publicKey], let proof = request[.proof] else {
                state = .idle
                connectionClosed(connection)
                return Self.answer(state: 4, error: .unknown)
            }
            guard let outcome = srp.verify(clientPublicKey: a, proof: proof) else {
                state = .idle
                connectionClosed(connection)
                _ = try store.countUnsuccessfulAttempt()
                return Self.answer(state: 4, error: .authentication)
            }
            state = .proven(sessionKey: outcome.sessionKey)
            var answer = TLV8()
            answer.append(.state, byte: 4)
            answer.append(.proof, outcome.serverProof)
            return answer
        case 5:
            defer { connectionClosed(connection) }
            guard case .proven(let k) = state, let sealed = request[.encryptedData] else {
                state = .idle
                return Self.answer(state: 6, error: .unknown)
            }
            state = .idle
            let key = HKDFLabel.derive(k, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info")
            guard let plain = HKDFLabel.open(sealed, key: key, nonce: "PS-Msg05"),
                  let sub = try? TLV8.decode(plain),
                  let id = sub[.identifier], let ltpk = sub[.publicKey], let signature = sub[.signature],
                  let controllerKey = try? Curve25519.Signing.PublicKey(rawRepresentation: ltpk) else {
                return Self.answer(state: 6, error: .authentication)
            }
            let controllerX = HKDFLabel.derive(k, salt: "Pair-Setup-Controller-Sign-Salt", info: "Pair-Setup-Controller-Sign-Info")
            guard controllerKey.isValidSignature(signature, for: controllerX + id + ltpk),
                  let controllerID = String(validating: id, as: UTF8.self) else {
                return Self.answer(state: 6, error: .authentication)
            }
            guard try store.add(PairingStore.Pairing(id: controllerID, publicKey: ltpk, admin: true)) else {
                return Self.answer(state: 6, error: .maxPeers)
            }
            let accessoryX = HKDFLabel.derive(k, salt: "Pair-Setup-Accessory-Sign-Salt", info: "Pair-Setup-Accessory-Sign-Info")
            let accessoryID = Array(identity.pairingID.utf8)
            var reply = TLV8()
            reply.append(.identifier, accessoryID)
            reply.append(.publicKey, identity.publicKey)
            reply.append(.signature, try identity.sign(accessoryX + accessoryID + identity.publicKey))
            var answer = TLV8()
            answer.append(.state, byte: 6)
            answer.append(.encryptedData, try HKDFLabel.seal(reply.encoded(), key: key, nonce: "PS-Msg06"))
            return answer
        default:
            state = .idle
            connectionClosed(connection)
            return Self.answer(state: (request.byte(.state) ?? 0) &+ 1, error: .unknown)
        }
    }
}
