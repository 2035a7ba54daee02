import Foundation
import HouseCore
import HouseHomeKitTesting
import HouseTesting

@testable import HouseHomeKit

/// The bridge on the example house's fake (`FakeHomeKitHouse`), listening on 127.0.0.1 and a free
/// port, with its files in a temporary directory removed afterwards.
enum BridgeFixture {
    static let code = "031-45-154"
}

/// Runs the bridge until `body` returns: `body` gets the bridge, its house and its port.
func withBridge<T: Sendable>(limits: HomeKitLimits = HomeKitLimits(), clock: any WallClock = MonotonicWallClock(),
                             _ body: (HomeKitBridge, FakeHomeKitHouse, Int) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("homekit-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let configuration = try HouseFixtures.exampleConfiguration()
    let house = FakeHomeKitHouse(configuration: configuration)
    let bridge = try HomeKitBridge(configuration: configuration, stateDirectory: directory, setupCode: try SetupCode(BridgeFixture.code),
                                   house: house, limits: limits, clock: clock)
    let (ports, portFeed) = AsyncStream<Int>.makeStream()
    let server = Task { try await bridge.run(host: "127.0.0.1", port: 0) { portFeed.yield($0) } }
    defer { server.cancel() }
    let port = try await withTimeout(.seconds(10)) { await ports.first { _ in true } ?? 0 }
    return try await body(bridge, house, port)
}
