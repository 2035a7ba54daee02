import Foundation
import HouseCore
import HouseHomeKit
import HouseTesting
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HouseWeb

/// The HomeKit bridge on the page: its setup code and QR code while no controller is paired,
/// only the count once one is, and nothing when HomeKit is off.
// One test at a time: a controller each (see WebAppTests).
@Suite(.serialized) struct WebHomeKitTests {
    func withPage(homekit: Bool, _ body: @escaping @Sendable (any TestClientProtocol, HomeKitBridge?) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("homekit-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withController { fixture in
            let bridge = homekit
                ? try HomeKitBridge(configuration: fixture.controller.configuration, stateDirectory: directory,
                                    setupCode: try SetupCode("031-45-154"), house: ControllerHouse(controller: fixture.controller))
                : nil
            let app = WebApp(controller: fixture.controller, settings: WebSettings(port: 0),
                             sessions: WebSessions(passwords: nil, clock: fixture.clock), homekit: bridge)
            try await Application(router: app.router()).test(.router) { client in
                try await body(client, bridge)
            }
        }
    }

    @Test func theSetupCodeAndItsQRCodeWhileNobodyIsPaired() async throws {
        try await withPage(homekit: true) { client, bridge in
            let bridge = try #require(bridge)
            try await client.execute(uri: "/api/homekit", method: .get) { response in
                #expect(response.status == .ok)
                let view = try JSONDecoder().decode(HomeKitView.self, from: Data(buffer: response.body))
                #expect(view.name == "Maple Cottage Bridge" && view.paired == 0 && view.setupCode == "031-45-154")
                #expect(view.setupURI == HAPAdvertisement.setupURI(code: try SetupCode("031-45-154"), setupID: bridge.discovery.setupID))
            }
            let expected = try QRCode(encoding: bridge.setup.setupURI)
            try await client.execute(uri: "/homekit.svg", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/svg+xml; charset=utf-8")
                let svg = String(buffer: response.body)
                #expect(svg.contains(#"viewBox="0 0 29 29""#) && svg.contains(#"data-modules="21""#), "21 modules and a quiet zone of 4")
                // One square per dark module, at its place behind the quiet zone.
                #expect(svg.matches(of: /M\d+ \d+h1v1h-1z/).count == expected.modules.filter { $0 }.count)
                #expect(svg.contains("M4 4h1v1h-1z") && !svg.contains("M5 5h1v1h-1z"), "the finder's corner dark, its light ring not")
            }
        }
    }

    @Test func aPairedBridgeShowsHowManyAreAndNoCode() async throws {
        try await withPage(homekit: true) { client, bridge in
            let store = try #require(bridge).pairing.store
            for id in ["phone", "tablet"] {
                _ = try store.add(PairingStore.Pairing(id: id, publicKey: Array(repeating: 1, count: 32), admin: true))
            }
            try await client.execute(uri: "/api/homekit", method: .get) { response in
                let view = try JSONDecoder().decode(HomeKitView.self, from: Data(buffer: response.body))
                #expect(view.paired == 2 && view.setupCode == nil && view.setupURI == nil)
                #expect(!String(buffer: response.body).contains("031-45-154"))
            }
            try await client.execute(uri: "/homekit.svg", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func withHomeKitOffThereIsNothingToShow() async throws {
        try await withPage(homekit: false) { client, _ in
            for path in ["/api/homekit", "/homekit.svg"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .notFound, "\(path)")
                    #expect(String(buffer: response.body).contains("HomeKit is off"), "\(path)")
                }
            }
        }
    }
}
