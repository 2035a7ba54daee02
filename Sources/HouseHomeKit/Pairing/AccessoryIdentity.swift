import Crypto
import Foundation

/// Who the bridge is to HomeKit: its pairing id (`XX:XX:XX:XX:XX:XX`, random, kept) and its
/// long-term Ed25519 key, in `accessory.json` under the bridge's state directory (0600). Made
/// the first time, the same after every restart; a new one only when the file is removed (then
/// every controller must pair again).
public struct AccessoryIdentity: Sendable {
    public let pairingID: String
    let signingKey: Curve25519.Signing.PrivateKey

    public init(pairingID: String, signingKey: Curve25519.Signing.PrivateKey) {
        self.pairingID = pairingID
        self.signingKey = signingKey
    }

    /// The long-term public key (32 bytes).
    public var publicKey: [UInt8] { Array(signingKey.publicKey.rawRepresentation) }

    func sign(_ message: [UInt8]) throws(HomeKitError) -> [UInt8] {
        do { return Array(try signingKey.signature(for: message)) } catch { throw .crypto("signing failed") }
    }

    static let fileName = "accessory.json"

    private struct Stored: Codable {
        var pairingID: String
        var privateKey: String  // base64 of the 32-byte seed
    }

    /// Loads the identity kept in `directory`, or makes and keeps a new one.
    public static func loadOrCreate(in directory: String) throws(HomeKitError) -> AccessoryIdentity {
        let path = directory + "/" + fileName
        if let stored = try StateFile.read(Stored.self, at: path) {
            guard let seed = Data(base64Encoded: stored.privateKey),
                  let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) else {
                throw .stateFile(path: path, reason: "the key is not an Ed25519 key")
            }
            return AccessoryIdentity(pairingID: stored.pairingID, signingKey: key)
        }
        var g = SystemRandomNumberGenerator()
        let id = (0..<6).map { _ in String(format: "%02X", UInt8.random(in: 0...255, using: &g)) }.joined(separator: ":")
        let identity = AccessoryIdentity(pairingID: id, signingKey: Curve25519.Signing.PrivateKey())
        try StateFile.write(Stored(pairingID: id, privateKey: identity.signingKey.rawRepresentation.base64EncodedString()), to: path)
        return identity
    }
}
