import Foundation
import HouseCore
import HouseHomeKitTesting
import HouseTesting
import NIOCore
import NIOPosix
import Testing

@testable import HouseHomeKit

/// The bridge on a socket: an encrypted session from pair-verify, `GET /accessories`, a write
/// that reaches the house as a command, and a tampered frame that closes the connection.
@Suite struct BridgeTests {
    @Test(.timeLimit(.minutes(1))) func tamperedFrameClosesTheSession() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("homekit-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = try HouseFixtures.exampleConfiguration()
        let house = FakeHomeKitHouse(configuration: configuration)
        let bridge = try HomeKitBridge(configuration: configuration, stateDirectory: directory, setupCode: try SetupCode("031-45-154"), house: house)
        let controller = TestController()
        _ = try controller.pairSetup(bridge.pairing, code: "031-45-154")
        let (ports, portFeed) = AsyncStream<Int>.makeStream()
        let server = Task { try await bridge.run(host: "127.0.0.1", port: 0) { portFeed.yield($0) } }
        defer { server.cancel() }
        let port = try await withTimeout(.seconds(10)) { await ports.first { _ in true } ?? 0 }

        let socket = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        try await socket.executeThenClose { inbound, outbound in
            var reader = inbound.makeAsyncIterator()
            // Pair-verify over HTTP, then the encrypted session.
            let result = try await controller.pairVerify(accessoryKey: bridge.pairing.identity.publicKey) { tlv in
                let body = tlv.encoded()
                try await outbound.write(ByteBuffer(bytes: Array("POST /pair-verify HTTP/1.1\r\nContent-Type: application/pairing+tlv8\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body))
                var received: [UInt8] = []
                while true {
                    if let message = Self.message(&received) { return try TLV8.decode(message.body) }
                    guard let buffer = try await reader.next() else { throw HomeKitError.malformedHTTP(reason: "closed") }
                    received += Array(buffer.readableBytesView)
                }
            }
            guard case .verified(let verify) = result else {
                Issue.record("pair-verify failed")
                return
            }
            var cipher = verify
            var pending: [UInt8] = []
            // One whole response (headers and Content-Length bytes of body) off the session.
            func response() async throws -> String {
                while true {
                    if let message = Self.message(&pending) { return message.text }
                    guard let buffer = try await reader.next() else { throw HomeKitError.malformedHTTP(reason: "closed") }
                    pending += try cipher.open(Array(buffer.readableBytesView))
                }
            }
            try await outbound.write(ByteBuffer(bytes: try cipher.seal(Array("GET /accessories HTTP/1.1\r\n\r\n".utf8))))
            let accessories = try await response()
            #expect(accessories.hasPrefix("HTTP/1.1 200 OK"))
            #expect(accessories.contains("{\"accessories\":[{\"aid\":1,"))
            // A write: a command to the house.
            let aid = try #require(bridge.database.accessory(of: DeviceID("kitchen-light"))?.aid)
            let body = "{\"characteristics\":[{\"aid\":\(aid),\"iid\":10,\"value\":true}]}"
            try await outbound.write(ByteBuffer(bytes: try cipher.seal(Array("PUT /characteristics HTTP/1.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))))
            #expect(try await response().hasPrefix("HTTP/1.1 204"))
            #expect(house.writes == [.setOn(DeviceID("kitchen-light"), true)])
            // A tampered frame: the bridge closes the connection.
            var bad = try cipher.seal(Array("GET /accessories HTTP/1.1\r\n\r\n".utf8))
            bad[4] ^= 0x80
            try await outbound.write(ByteBuffer(bytes: bad))
            // (the suite's time limit bounds the wait; a reset is a close too)
            let end = try? await reader.next()
            #expect(end == nil)
        }
    }

    /// Takes one whole HTTP message (headers and Content-Length bytes of body) off the front of
    /// `bytes`: its text and its body; nil until it is all there.
    static func message(_ bytes: inout [UInt8]) -> (text: String, body: [UInt8])? {
        guard let end = HAPRequestParser.headerEnd(bytes) else { return nil }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        let length = head.split(separator: "\r\n").compactMap { line -> Int? in
            line.lowercased().hasPrefix("content-length:") ? Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) : nil
        }.first ?? 0
        guard bytes.count >= end + 4 + length else { return nil }
        defer { bytes.removeFirst(end + 4 + length) }
        return (String(decoding: bytes[..<(end + 4 + length)], as: UTF8.self), Array(bytes[(end + 4)..<(end + 4 + length)]))
    }
}
