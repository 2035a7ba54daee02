import Testing

@testable import HouseHomeKit

/// The DNS-SD records and the setup URI, compared with what HAP-python 5.0.0 (a known-good
/// accessory) computes for the same code, setup ID and pairing id.
@Suite struct HAPAdvertisementTests {
    @Test func setupURIAndHash() throws {
        #expect(HAPAdvertisement.setupURI(code: try SetupCode("031-45-154"), setupID: "7OSX") == "X-HM://0023ISYWY7OSX")
        #expect(HAPAdvertisement.setupHash(setupID: "7OSX", pairingID: "B5:71:93:09:63:E5") == "Ya5o/Q==")
        // HAP-NodeJS's documented layout: the category from bit 31 (2, a bridge; 5, a lightbulb), the
        // flag for IP at bit 28, the code's digits below; in base 36 on nine places, then the setup ID.
        // 2 << 31 | 1 << 28 | 51808582 = 4563276358 = "0024BRZUU" in base 36.
        #expect(HAPAdvertisement.setupURI(code: try SetupCode("518-08-582"), setupID: "ABCD") == "X-HM://0024BRZUUABCD")
        #expect(HAPAdvertisement.setupURI(code: try SetupCode("518-08-582"), setupID: "ABCD", category: 5) == "X-HM://0052VG2TIABCD")
    }

    @Test func txtRecords() {
        let ad = HAPAdvertisement(name: "Home Bridge", pairingID: "B5:71:93:09:63:E5", configurationNumber: 3, paired: false, setupID: "7OSX")
        let txt = Dictionary(uniqueKeysWithValues: ad.txtRecords.map { ($0.key, $0.value) })
        #expect(txt == ["c#": "3", "ff": "0", "id": "B5:71:93:09:63:E5", "md": "Home Bridge", "pv": "1.1", "s#": "1", "sf": "1", "ci": "2", "sh": "Ya5o/Q=="])
        #expect(HAPAdvertisement.randomSetupID().allSatisfy { $0.isNumber || ($0.isUppercase && $0.isASCII) })
    }
}
