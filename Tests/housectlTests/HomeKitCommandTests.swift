import Foundation
import HouseHomeKit
import HouseTesting
import Testing

@testable import housectl

/// `housectl homekit`: clear errors when HomeKit is off or the bridge never ran, then the setup
/// code, the URI, the QR code and the pairing state from the bridge's files.
@Suite struct HomeKitCommandTests {
    /// A copy of the example house with `homekit` set to `settings`, and a state directory, both removed after `body`.
    static func withHouse(_ settings: String?, _ body: (_ config: String, _ state: String) throws -> Void) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("homekit-cli-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        var text = try String(contentsOfFile: HouseFixtures.exampleConfigPath, encoding: .utf8)
        if let settings { text += "\nhomekit: \(settings)\n" }
        try text.write(toFile: root + "/house.yaml", atomically: true, encoding: .utf8)
        try body(root + "/house.yaml", root + "/state")
    }

    static func run(_ config: String, _ state: String, _ extra: [String] = []) throws -> CommandOutput {
        try HomeKitCommand.parse(["--config", config, "--devices-dir", HouseFixtures.devicesDirectory, "--state-dir", state] + extra).execute()
    }

    @Test func homeKitOffOrNeverStartedIsAClearError() throws {
        try Self.withHouse(nil) { config, state in
            let out = try Self.run(config, state)
            #expect(out.exitCode == 1)
            #expect(out.errors.contains("HomeKit is off in \(config): add `homekit: {enabled: true}`"))
        }
        try Self.withHouse("{enabled: true}") { config, state in
            let out = try Self.run(config, state)
            #expect(out.exitCode == 1)
            #expect(out.errors == "\(state)/homekit/setup.json does not exist yet: the bridge makes it when `housectl serve` first runs with homekit: {enabled: true}")
            #expect(!FileManager.default.fileExists(atPath: state + "/homekit"), "nothing made")
        }
    }

    @Test func printsTheCodeTheURITheQRCodeAndThePairings() throws {
        try Self.withHouse("{enabled: true, bind: 127.0.0.1, port: 51900}") { config, state in
            let directory = state + "/homekit"
            let code = try SetupCode.load(pinFile: nil, keptIn: directory)
            let discovery = try HAPDiscoveryState.load(in: directory, accessories: "a")
            let uri = HAPAdvertisement.setupURI(code: code, setupID: discovery.setupID)
            let out = try Self.run(config, state)
            #expect(out.exitCode == 0, "\(out.errors)")
            let lines = out.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.prefix(3) == ["HomeKit bridge \"Maple Cottage Bridge\"", "Setup code: \(code.text)", "Setup URI:  \(uri)"])
            // The QR code between two empty lines: the matrix of the URI, drawn as QRCode draws it.
            let qr = try QRCode(encoding: uri).terminalLines()
            #expect(Array(lines[3...(4 + qr.count)]) == [""] + qr + [""])
            #expect(lines.contains("Paired:     not yet: in the Home app, Add Accessory and scan the QR code (or type the setup code)"))
            #expect(lines.contains("Listens:    127.0.0.1:51900 while housectl serve runs"))
            #expect(lines.last?.hasPrefix("mDNS:       o") == true)

            _ = try PairingStore(directory: directory).add(PairingStore.Pairing(id: "phone", publicKey: Array(repeating: 2, count: 32), admin: true))
            let paired = try Self.run(config, state, ["--no-qr"])
            #expect(paired.text.contains("Paired:     with 1 controller; to pair anew, remove the bridge in the Home app first"))
            #expect(!paired.text.contains("█") && paired.text.contains("Setup URI:  \(uri)"))
        }
    }

    @Test func theCodeOfAPinFile() throws {
        try Self.withHouse(nil) { config, state in
            let pin = (config as NSString).deletingLastPathComponent + "/pin"
            try "518-08-582\n".write(toFile: pin, atomically: true, encoding: .utf8)
            let text = try String(contentsOfFile: config, encoding: .utf8) + "\nhomekit: {enabled: true, pin_file: \(pin)}\n"
            try text.write(toFile: config, atomically: true, encoding: .utf8)
            _ = try HAPDiscoveryState.load(in: state + "/homekit", accessories: "a")
            let out = try Self.run(config, state, ["--no-qr"])
            #expect(out.exitCode == 0, "\(out.errors)")
            #expect(out.text.contains("Setup code: 518-08-582"))
            #expect(out.text.contains("Listens:    0.0.0.0:51826 (every interface)"))
        }
    }
}
