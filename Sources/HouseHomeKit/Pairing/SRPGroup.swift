import BigInt
import Crypto
import Foundation

/// The parameters of SRP-6a: the group (N, g), its length in bytes for padding, and the hash.
/// HAP uses RFC 5054's 3072-bit group with g = 5 and SHA-512 (`SRPGroup.hap`); the RFC's own
/// test vector uses the 1024-bit group with SHA-1 (`SRPGroup.rfc5054Test`, tests only).
public struct SRPGroup: Sendable {
    public let N: BigUInt
    public let g: BigUInt
    /// The length of N in bytes: A, B, S and g are padded to it where the RFC says PAD().
    public let length: Int
    package let hash: @Sendable ([UInt8]) -> [UInt8]

    public init(primeHex: String, generator: BigUInt, hash: @escaping @Sendable ([UInt8]) -> [UInt8]) {
        N = BigUInt(primeHex.filter { !$0.isWhitespace }, radix: 16)!
        g = generator
        length = (N.bitWidth + 7) / 8
        self.hash = hash
    }

    /// HAP's group: RFC 5054's 3072-bit prime, g = 5, SHA-512.
    public static let hap = SRPGroup(primeHex: """
        FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD
        EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED
        EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F
        83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B
        E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510
        15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7
        ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C
        BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF
        """, generator: 5, hash: { Array(SHA512.hash(data: $0)) })

    /// RFC 5054's 1024-bit group with g = 2 and SHA-1: only for the RFC's test vector.
    public static let rfc5054Test = SRPGroup(primeHex: """
        EEAF0AB9ADB38DD69C33F80AFA8FC5E86072618775FF3C0B9EA2314C9C256576D674DF7496EA81D3383B4813D692C6E0
        E0D5D8E250B98BE48E495C1D6089DAD15DC7D7B46154D6B6CE8EF4AD69B15D4982559B297BCF1885C529F566660E57EC
        68EDBC3C05726CC02FD4CBF4976EAA9AFD5138FE8376435B9FC61D2FC0EB06E3
        """, generator: 2, hash: { Array(Insecure.SHA1.hash(data: $0)) })

    /// `value` as big-endian bytes, left-padded with zeros to the group's length.
    package func pad(_ value: BigUInt) -> [UInt8] {
        let bytes = [UInt8](value.serialize())
        return bytes.count >= length ? bytes : [UInt8](repeating: 0, count: length - bytes.count) + bytes
    }

    /// k = H(N | PAD(g)).
    package var k: BigUInt { BigUInt(Data(hash(pad(N) + pad(g)))) }
}
