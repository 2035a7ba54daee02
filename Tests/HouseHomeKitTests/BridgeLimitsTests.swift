import Foundation
import HouseCore
import HouseHomeKitTesting
import HouseTesting
import Testing

@testable import HouseHomeKit

/// What the bridge holds for anybody on the network (`HomeKitLimits`): connections beyond the
/// bound are closed, an unverified connection that falls silent is closed (a verified one is
/// not), one pair-setup at a time across connections (Busy), and a request past the size limits
/// closes its connection. Every wait is on an event, bounded by the suite's time limit.
@Suite(.timeLimit(.minutes(2))) struct BridgeLimitsTests {
    /// An identify of the unpaired bridge: 204 when the connection is served.
    static func identifies(_ session: inout HAPTestSession) async -> Bool {
        (try? await session.request("POST", "/identify"))?.status == 204
    }

    @Test func connectionsBeyondTheBoundAreClosed() async throws {
        try await withBridge(limits: HomeKitLimits(maxConnections: 2)) { _, _, port in
            try await HAPTestSession.connect(port: port) { first in
                #expect(await Self.identifies(&first))
                try await HAPTestSession.connect(port: port) { second in
                    #expect(await Self.identifies(&second))
                    let third = try await HAPTestSession.connect(port: port) { third in await third.closed() }
                    #expect(third, "a third connection is closed")
                }
                // The second has gone: a new connection is served once the bridge has seen it go.
                let admitted = try await withTimeout(.seconds(20), "a place freed by a closed connection") {
                    while true {
                        if try await HAPTestSession.connect(port: port, { await Self.identifies(&$0) }) { return true }
                    }
                }
                #expect(admitted)
                #expect(await Self.identifies(&first), "the first is still served")
            }
        }
    }

    @Test func anUnverifiedConnectionThatFallsSilentIsClosed() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000))
        try await withBridge(limits: HomeKitLimits(unverifiedIdle: .seconds(60)), clock: clock) { _, _, port in
            try await HAPTestSession.connect(port: port) { session in
                await clock.waitForSleepers(1)
                clock.advance(by: .seconds(59))
                // A request moves the deadline on: 60 s from now.
                #expect(await Self.identifies(&session))
                clock.advance(by: .seconds(40))
                await clock.waitForSleepers(1)
                #expect(await Self.identifies(&session), "served 99 s after it opened, 40 s after its last request")
                clock.advance(by: .seconds(60))
                #expect(await session.closed())
            }
        }
    }

    @Test func onePairSetupAtATimeAcrossConnections() async throws {
        try await withBridge { _, _, port in
            var m1 = TLV8()
            m1.append(.state, byte: 1)
            m1.append(.method, byte: 0)
            let m1Body = m1.encoded()
            func start(_ session: inout HAPTestSession) async throws -> TLV8 {
                try TLV8.decode(try await session.request("POST", "/pair-setup", body: m1Body, contentType: HAPResponse.tlv8ContentType).body)
            }
            try await HAPTestSession.connect(port: port) { second in
                try await HAPTestSession.connect(port: port) { first in
                    let m2 = try await start(&first)
                    #expect(m2.byte(.state) == 2 && m2.byte(.error) == nil)
                    let busy = try await start(&second)
                    #expect(busy.byte(.state) == 2 && busy.byte(.error) == TLVErrorCode.busy.rawValue)
                }
                // The first connection has gone, its pair-setup with it, once the bridge has seen it
                // go (asked again until then; the suite's time limit bounds it).
                var m2 = try await start(&second)
                while m2.byte(.error) == TLVErrorCode.busy.rawValue { m2 = try await start(&second) }
                #expect(m2.byte(.state) == 2 && m2.byte(.error) == nil)
            }
        }
    }

    @Test func requestsPastTheLimitsCloseTheConnection() async throws {
        try await withBridge(limits: HomeKitLimits(maxUnverifiedBody: 4096)) { _, _, port in
            // Before pair-verify a body is at most 4096 bytes.
            try await HAPTestSession.connect(port: port) { session in
                try await session.sendRaw(Array("POST /pair-setup HTTP/1.1\r\nContent-Length: 4097\r\n\r\n".utf8))
                #expect(await session.closed())
            }
            // Headers of more than 8 KiB.
            try await HAPTestSession.connect(port: port) { session in
                try await session.sendRaw(Array("GET /accessories HTTP/1.1\r\nX: \(String(repeating: "a", count: 9000))\r\n\r\n".utf8))
                #expect(await session.closed())
            }
            // The bridge serves the next connection.
            try await HAPTestSession.connect(port: port) { session in #expect(await Self.identifies(&session)) }
        }
    }
}
