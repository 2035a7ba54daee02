import BigInt
import Foundation
import Testing

@testable import HouseHomeKit

/// SRP-6a: the RFC 5054 test vector (1024-bit group, SHA-1: the same formulas with another group
/// and hash), and a HAP vector (3072-bit group, SHA-512, "Pair-Setup") made with aiohomekit's own
/// SRP client, the controller the end-to-end test pairs with.
@Suite struct SRPTests {
    static func hex(_ s: String) -> [UInt8] {
        let h = Array(s.filter { !$0.isWhitespace }.utf8)
        return stride(from: 0, to: h.count, by: 2).map { UInt8(String(decoding: h[$0..<($0 + 2)], as: UTF8.self), radix: 16)! }
    }

    @Test func rfc5054AppendixB() {
        let server = SRPServer(group: .rfc5054Test, username: "alice", password: "password123",
                               salt: Self.hex("BEB25379 D1A8581E B5A72767 3A2441EE"),
                               privateKey: Self.hex("E487CB59 D31AC550 471E81F0 0F6928E0 1DDA08E9 74A004F4 9E61F5D1 05284D20"))
        #expect(SRPGroup.rfc5054Test.k == BigUInt("7556AA045AEF2CDD07ABAF0F665C3E818913186F", radix: 16)!)
        #expect(server.verifierBytes == Self.hex("""
            7E273DE8 696FFC4F 4E337D05 B4B375BE B0DDE156 9E8FA00A 9886D812 9BADA1F1 822223CA 1A605B53 0E379BA4 729FDC59 F105B478
            7E5186F5 C671085A 1447B52A 48CF1970 B4FB6F84 00BBF4CE BFBB1681 52E08AB5 EA53D15C 1AFF87B2 B9DA6E04 E058AD51 CC72BFC9
            033B564E 26480D78 E955A5E2 9E7AB245 DB2BE315 E2099AFB
            """))
        #expect(server.publicKey == Self.hex("""
            BD0C6151 2C692C0C B6D041FA 01BB152D 4916A1E7 7AF46AE1 05393011 BAF38964 DC46A067 0DD125B9 5A981652 236F99D9 B681CBF8
            7837EC99 6C6DA044 53728610 D0C6DDB5 8B318885 D7D82C7F 8DEB75CE 7BD4FBAA 37089E6F 9C6059F3 88838E7A 00030B33 1EB76840
            910440B1 B27AAEAE EB4012B7 D7665238 A8E3FB00 4B117B58
            """))
        let A = Self.hex("""
            61D5E490 F6F1B795 47B0704C 436F523D D0E560F0 C64115BB 72557EC4 4352E890 3211C046 92272D8B 2D1A5358 A2CF1B6E 0BFCF99F
            921530EC 8E393561 79EAE45E 42BA92AE ACED8251 71E1E8B9 AF6D9C03 E1327F44 BE087EF0 6530E69F 66615261 EEF54073 CA11CF58
            58F0EDFD FE15EFEA B349EF5D 76988A36 72FAC47B 0769447B
            """)
        #expect(server.scrambler(A: A) == Self.hex("CE38B959 3487DA98 554ED47D 70A7AE5F 462EF019"))
        #expect(server.compute(A: BigUInt(Data(A))).S == Self.hex("""
            B0DC82BA BCF30674 AE450C02 87745E79 90A3381F 63B387AA F271A10D 233861E3 59B48220 F7C4693C 9AE12B0A 6F67809F 0876E2D0
            13800D6C 41BB59B6 D5979B5C 00A172B4 A2A5903A 0BDCAF8A 709585EB 2AFAFA8F 3499B200 210DCC1F 10EB3394 3CD67FC8 8A2F39A4
            BE5BEC4E C0A3212D C346D7E4 74B29EDE 8A469FFE CA686E5A
            """))
    }

    /// Salt 01..10, b = 32 bytes of 0x22, a = 32 bytes of 0x11, code 031-45-154: B, M1, K and M2
    /// as aiohomekit 4.0.1's `SrpClient`/`SrpServer` compute them.
    @Test func hapVectorFromAiohomekit() throws {
        let server = SRPServer(password: "031-45-154", salt: Array(1...16), privateKey: [UInt8](repeating: 0x22, count: 32))
        #expect(server.publicKey == Self.hex(Vector.B))
        let outcome = try #require(server.verify(clientPublicKey: Self.hex(Vector.A), proof: Self.hex(Vector.M1)))
        #expect(outcome.sessionKey == Self.hex(Vector.K))
        #expect(outcome.serverProof == Self.hex(Vector.M2))
        // A wrong proof, a degenerate A: refused.
        var wrong = Self.hex(Vector.M1)
        wrong[0] ^= 1
        #expect(server.verify(clientPublicKey: Self.hex(Vector.A), proof: wrong) == nil)
        #expect(server.verify(clientPublicKey: SRPGroup.hap.pad(SRPGroup.hap.N), proof: Self.hex(Vector.M1)) == nil)
        #expect(server.verify(clientPublicKey: [0], proof: Self.hex(Vector.M1)) == nil)
    }

    enum Vector {
        static let B = """
            4d93345bc3f8f63e2b1428614a8451709dfe60460df2f660390a228ce19e21c86fff39445f80fefa4ef14828edd86aef2786486f70939b862b6d8fab6cada0c9a96dd6a5f6b22fbae5705a94cf611009245a5c615faac620739a6053a77f42b9e1096ba06430551744b3b10a4c1f398b29b81200f97a2b4d7550e19177edca64d65bbf510f7cf52a9c6cc8bf4b6d0b01ed188e7aea5e1934deb477089e993e8d928259d84474bae345654ca2b291689620ac6437ec8e6115cde8b0e87c96f45d60555329463256afe0cbc577fdd218554701fa902f466776a66302f90b7f2a514a29b103a6a2511eca051f2c1d5516b5b9f2ea526dbd98cbf155aed8aab5a18cbad3fcdd0dd8eb39133a804fecc00e7c242c067cc62e501b17d28e23ff16a985768c79aec198f7fb4230beda9dfd759e36e961c71d28f861736abf8ee54b63ce2a36499d1165a3fd37bf3374a0aec01b8c4b26ec0116754dc534553f00b8c2b972c2ded092f1792a499dd697506cc32892e15bdf9ecb0f6e3912901805c97583
            """
        static let A = """
            c95341372ca4d0b469f87c0ae37bda635713223b577ef5e8d64a959a54e5395722fea50e71bbd44306055760924a64885805ae13545fcfc7e65f4e7b75c765a112d267f79bffb8353d96ae81cfa64ca7eb687a5dba4cf223b21e1362489ca3e056254b25f610c00643490ea19944f6d3d0872bdcc5fc338bebc8936f30b695924e117f364a4cfc3898eeaa1a4bb98957df8eb046eba3cf42558138ca616a1dc7991426292dd258693bbd4c11816e3064e4a7c536f7255ae61735db25e3cf0349eb8b3e9848d0aa572b0f809d8983f1b280581aba96104422fcf088b698f8d899115a5653cc473e87f5e45552a5a126c8b7fc273bd2cd12bfb15ff3501a572b17608f16c33f6e971081f3af1be37a0a96748f60d204e935f6a5d2a71303aea434b45bcb9ab6b4444208d3fdf7a00c07a3ba2a09b56b578170c78ba1573ca2692406ba8d461e43bb3d160f0024a388d7234236537e29c3604f666c69d7244eae29a0e8b9fa5ee490890e5892973fa535707fbe8f06e90dcbb99c7b39b5eb2b45fb
            """
        static let M1 = "65831ec72aae35dad7d7acbf2c64fac517664d6ed05e3b871443c843849d06140944dffeb44fd23b3af6e514f62326e4fbd8954f3b5445349d2c77b8107d5696"
        static let K = "e565ec423d1cbca6391c2b962b900c753944bad42f361e6b35adb783d7f291c99367fadcc0e768667515c0a54bfd11ab1c941202b693ffda20939c77d9b2a1ce"
        static let M2 = "e5854c5fc405b65caa069652e09c95437cde399888eeeb6150ea0b179099344cda6176e77c1d5e2de56229afe612ebb029f7702d94ab8be09406ea6dae161bce"
    }
}
