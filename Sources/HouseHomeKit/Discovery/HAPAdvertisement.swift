import Crypto
import Foundation

/// What the bridge announces by DNS-SD as `_hap._tcp` (HAP's table 6-7, through `HAPAnnouncer`):
/// the TXT records, and the setup URI behind the QR code.
public struct HAPAdvertisement: Sendable, Equatable {
    /// The service's instance name (`md` too).
    public var name: String
    public var pairingID: String
    /// `c#`: goes up whenever the accessories change, so controllers fetch them again.
    public var configurationNumber: Int
    /// Whether any controller is paired (`sf` 0) or the bridge waits to be (`sf` 1).
    public var paired: Bool
    /// The four characters of the setup payload, for the setup hash.
    public var setupID: String
    /// `ci`: 2 is a bridge.
    public var category: Int

    public init(name: String, pairingID: String, configurationNumber: Int, paired: Bool, setupID: String, category: Int = 2) {
        self.name = name
        self.pairingID = pairingID
        self.configurationNumber = configurationNumber
        self.paired = paired
        self.setupID = setupID
        self.category = category
    }

    /// The TXT records in HAP's order.
    public var txtRecords: [(key: String, value: String)] {
        [("c#", String(configurationNumber)), ("ff", "0"), ("id", pairingID), ("md", name), ("pv", "1.1"), ("s#", "1"),
         ("sf", paired ? "0" : "1"), ("ci", String(category)), ("sh", Self.setupHash(setupID: setupID, pairingID: pairingID))]
    }

    /// `sh`: the first four bytes of SHA-512(setup ID + pairing id), base64.
    public static func setupHash(setupID: String, pairingID: String) -> String {
        Data(SHA512.hash(data: Array((setupID + pairingID).utf8)).prefix(4)).base64EncodedString()
    }

    /// The setup URI a QR code carries (`X-HM://` + the payload in base 36 + the setup ID): version
    /// 0, the category, the flag for IP, the code's digits.
    public static func setupURI(code: SetupCode, setupID: String, category: Int = 2) -> String {
        let digits = UInt64(code.text.filter(\.isNumber)) ?? 0
        let payload = UInt64(category & 0xFF) << 31 | UInt64(2) << 27 | (digits & 0x7FF_FFFF)
        let encoded = String(payload, radix: 36, uppercase: true)
        return "X-HM://" + String(repeating: "0", count: max(0, 9 - encoded.count)) + encoded + setupID
    }

    /// A random setup ID: four characters of 0-9 and A-Z.
    public static func randomSetupID() -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        var g = SystemRandomNumberGenerator()
        return String((0..<4).map { _ in alphabet.randomElement(using: &g)! })
    }
}
