import BigInt
import Foundation

/// The accessory's side of SRP-6a as HAP uses it (RFC 5054 with the 3072-bit group, SHA-512,
/// the username "Pair-Setup" and the setup code `XXX-XX-XXX` as password):
///
///     x = H(s | H(I ":" P))        v = g^x             k = H(N | PAD(g))
///     B = (k v + g^b) % N          u = H(PAD(A) | PAD(B))
///     S = (A v^u)^b % N            K = H(PAD(S))
///     M1 = H(H(N) xor H(g) | H(I) | s | PAD(A) | PAD(B) | K)      M2 = H(PAD(A) | M1 | K)
///
/// built from a big-integer type and the hash, no primitive of its own.
public struct SRPServer: Sendable {
    public let group: SRPGroup
    public let username: String
    public let salt: [UInt8]
    let verifier: BigUInt
    let b: BigUInt
    let B: BigUInt

    /// `privateKey` is b (random, 32 bytes, in use; fixed only for test vectors).
    public init(group: SRPGroup = .hap, username: String = "Pair-Setup", password: String, salt: [UInt8], privateKey: [UInt8]) {
        self.group = group
        self.username = username
        self.salt = salt
        let x = BigUInt(Data(group.hash(salt + group.hash(Array("\(username):\(password)".utf8)))))
        verifier = group.g.power(x, modulus: group.N)
        b = BigUInt(Data(privateKey))
        B = (group.k * verifier + group.g.power(b, modulus: group.N)) % group.N
    }

    /// B, padded to the group's length.
    public var publicKey: [UInt8] { group.pad(B) }

    /// The verifier v (tests compare it with the RFC's).
    public var verifierBytes: [UInt8] { [UInt8](verifier.serialize()) }

    /// What the exchange gives once the controller's A and proof M1 are known.
    public struct Outcome: Sendable, Equatable {
        /// K: the session key, input to every key derived from the pairing.
        public var sessionKey: [UInt8]
        /// M2, the accessory's proof.
        public var serverProof: [UInt8]
        /// The premaster secret S (padded), for test vectors.
        public var premaster: [UInt8]
    }

    /// Checks the controller's proof; nil when it is wrong (wrong setup code) or A is degenerate
    /// (A % N == 0, which would let anybody in).
    public func verify(clientPublicKey: [UInt8], proof: [UInt8]) -> Outcome? {
        let A = BigUInt(Data(clientPublicKey))
        guard !clientPublicKey.isEmpty, A % group.N != 0 else { return nil }
        let outcome = compute(A: A)
        guard constantTimeEqual(outcome.clientProof, proof) else { return nil }
        return Outcome(sessionKey: outcome.K, serverProof: group.hash(group.pad(A) + outcome.clientProof + outcome.K), premaster: outcome.S)
    }

    /// M1 and K as the controller must compute them for `A` (also the test vectors' path).
    func compute(A: BigUInt) -> (clientProof: [UInt8], K: [UInt8], S: [UInt8]) {
        let N = group.N
        let u = BigUInt(Data(group.hash(group.pad(A) + group.pad(B))))
        let S = (A * verifier.power(u, modulus: N) % N).power(b, modulus: N)
        let paddedS = group.pad(S)
        let K = group.hash(paddedS)
        let hN = group.hash([UInt8](N.serialize())), hg = group.hash([UInt8](group.g.serialize()))
        let hGroup = zip(hN, hg).map { $0 ^ $1 }
        let M1 = group.hash(hGroup + group.hash(Array(username.utf8)) + salt + group.pad(A) + group.pad(B) + K)
        return (M1, K, paddedS)
    }

    /// u for the test vectors.
    func scrambler(A: [UInt8]) -> [UInt8] {
        group.hash(group.pad(BigUInt(Data(A))) + group.pad(B))
    }
}

/// Equality of two byte strings in time that depends on their length only.
func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var diff: UInt8 = 0
    for i in a.indices { diff |= a[i] ^ b[i] }
    return diff == 0
}
