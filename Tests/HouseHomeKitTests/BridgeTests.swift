import Foundation
import HouseCore
import HouseHomeKitTesting
import HouseTesting
import Testing

@testable import HouseHomeKit

/// The bridge on a socket: an encrypted session from pair-verify (never closed for being idle),
/// `GET /accessories`, a write that reaches the house as a command, and a tampered frame that
/// closes the connection.
@Suite struct BridgeTests {
    @Test(.timeLimit(.minutes(1))) func tamperedFrameClosesTheSession() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000))
        try await withBridge(clock: clock) { bridge, house, port in
            let controller = HAPTestController()
            _ = try await controller.pairSetup(bridge.pairing, code: BridgeFixture.code)
            try await HAPTestSession.connect(port: port) { session in
                guard case .verified = try await session.pairVerify(controller, accessoryKey: bridge.pairing.identity.publicKey) else {
                    Issue.record("pair-verify failed")
                    return
                }
                // Verified: the idle limit of unverified connections no longer applies.
                await clock.waitForSleepers(1)
                clock.advance(by: HomeKitLimits().unverifiedIdle * 2)
                let accessories = try await session.request("GET", "/accessories")
                #expect(accessories.status == 200)
                #expect(accessories.text.hasPrefix("{\"accessories\":[{\"aid\":1,"))
                // A write: a command to the house.
                let aid = try #require(bridge.database.accessory(of: DeviceID("kitchen-light"))?.aid)
                #expect(try await session.write(aid: aid, iid: 10, value: "true").status == 204)
                #expect(house.writes == [.setOn(DeviceID("kitchen-light"), true)])
                // A tampered frame: the bridge closes the connection.
                var bad = try session.sealed(Array("GET /accessories HTTP/1.1\r\n\r\n".utf8))
                bad[4] ^= 0x80
                try await session.sendRaw(bad)
                #expect(await session.closed())
            }
        }
    }
}
