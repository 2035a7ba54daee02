import Foundation
import HouseCore
import HouseHomeKitTesting
import HouseTesting
import Testing

@testable import HouseHomeKit

/// What the bridge keeps of its announcement: the setup ID made once, `c#` up when (and only
/// when) the accessories differ from the last start's, wrapping after 65535; the status flag
/// following the pairings; and the files a person's mistakes can leave.
@Suite struct HAPDiscoveryStateTests {
    static func withDirectory(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("homekit-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    @Test func theSetupIDIsKeptAndTheConfigurationNumberFollowsTheAccessories() throws {
        try Self.withDirectory { directory in
            #expect(try HAPDiscoveryState.read(in: directory) == nil, "nothing before the first start")
            let first = try HAPDiscoveryState.load(in: directory, accessories: "a")
            #expect(first.configurationNumber == 1)
            #expect(first.setupID.count == 4 && first.setupID.allSatisfy { $0.isASCII && ($0.isNumber || $0.isUppercase) })
            let mode = try FileManager.default.attributesOfItem(atPath: directory + "/discovery.json")[.posixPermissions] as? Int
            #expect(mode == 0o600)

            let same = try HAPDiscoveryState.load(in: directory, accessories: "a")
            #expect(same == first, "the same accessories: the same c# and setup ID")
            let changed = try HAPDiscoveryState.load(in: directory, accessories: "b")
            #expect(changed.configurationNumber == 2 && changed.setupID == first.setupID)
            #expect(try HAPDiscoveryState.read(in: directory) == changed, "kept")
            #expect(try HAPDiscoveryState.load(in: directory, accessories: "b").configurationNumber == 2)
            #expect(try HAPDiscoveryState.load(in: directory, accessories: "a").configurationNumber == 3, "back to the old ones is a change too")
        }
    }

    @Test func theConfigurationNumberWrapsTo1After65535() {
        var state = HAPDiscoveryState(setupID: "7OSX", configurationNumber: 65534, accessories: "a")
        #expect(state.accessoriesChanged(to: "b") && state.configurationNumber == 65535)
        #expect(state.accessoriesChanged(to: "c") && state.configurationNumber == 1)
        #expect(!state.accessoriesChanged(to: "c") && state.configurationNumber == 1)
    }

    @Test func aBrokenFileIsAnErrorThatNamesIt() throws {
        try Self.withDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let path = directory + "/discovery.json"
            try #"{"setupID": "ab", "configurationNumber": 1, "accessories": "a"}"#.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: HomeKitError.stateFile(path: path, reason: "the setup ID must be four characters of 0-9 and A-Z, not 'ab'")) {
                try HAPDiscoveryState.read(in: directory)
            }
            try #"{"setupID": "AB12", "configurationNumber": 0, "accessories": "a"}"#.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: HomeKitError.stateFile(path: path, reason: "the configuration number must be 1...65535, not 0")) {
                try HAPDiscoveryState.load(in: directory, accessories: "a")
            }
        }
    }

    /// The bridge's own: a device removed from house.yaml, or renamed, is a new `c#` at the next
    /// start; a restart with the same house is not. The setup ID and the code make the setup URI.
    @Test func theBridgeCountsAChangedHouse() throws {
        try Self.withDirectory { directory in
            var configuration = try HouseFixtures.exampleConfiguration()
            let code = try SetupCode("031-45-154")
            func bridge() throws -> HomeKitBridge {
                try HomeKitBridge(configuration: configuration, stateDirectory: directory, setupCode: code,
                                  house: FakeHomeKitHouse(configuration: configuration))
            }
            let first = try bridge()
            #expect(first.discovery.configurationNumber == 1)
            #expect(try bridge().discovery == first.discovery, "a restart with the same house")
            configuration.devices.removeAll { $0.id == "office-fan" }
            #expect(try bridge().discovery.configurationNumber == 2, "a device removed")
            let light = try #require(configuration.devices.firstIndex { $0.id == "kitchen-light" })
            configuration.devices[light].names = ["pendant"]
            let renamed = try bridge()
            #expect(renamed.discovery.configurationNumber == 3, "a device renamed")
            #expect(renamed.discovery.setupID == first.discovery.setupID)
            #expect(renamed.setup.setupURI == HAPAdvertisement.setupURI(code: code, setupID: first.discovery.setupID))
            #expect(renamed.advertisement.name == "Maple Cottage Bridge")
            #expect(renamed.advertisement.configurationNumber == 3)
        }
    }

    /// `sf` and the setup's count follow the pairings, and a change wakes the announcer's watch.
    @Test func thePairingsSetTheStatusFlag() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("homekit-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = try HouseFixtures.exampleConfiguration()
        // As HomeKitService does: the code made and kept in the state directory.
        let code = try SetupCode.load(pinFile: nil, keptIn: directory)
        let bridge = try HomeKitBridge(configuration: configuration, stateDirectory: directory, setupCode: code,
                                       house: FakeHomeKitHouse(configuration: configuration))
        #expect(bridge.advertisement.paired == false && bridge.setup.pairedControllers == 0)
        #expect(bridge.advertisement.txtRecords.first { $0.key == "sf" }?.value == "1")
        let store = bridge.pairing.store
        try await store.changes.watch { signal in
            _ = try store.add(PairingStore.Pairing(id: "phone", publicKey: Array(repeating: 7, count: 32), admin: true))
            try await withTimeout(.seconds(5)) { await signal.wait() }
        }
        #expect(bridge.advertisement.paired == true && bridge.setup.pairedControllers == 1)
        #expect(bridge.advertisement.txtRecords.first { $0.key == "sf" }?.value == "0")
        // What housectl homekit reads from the files agrees.
        let read = try HomeKitSetup.read(pinFile: nil, directory: directory, name: bridge.name)
        #expect(read == bridge.setup && read.pairedControllers == 1)
    }

    @Test func theSetupIsNotReadBeforeTheBridgeFirstRan() throws {
        try Self.withDirectory { directory in
            #expect(throws: HomeKitError.notStartedYet(path: directory + "/setup.json")) {
                try HomeKitSetup.read(pinFile: nil, directory: directory, name: "Home Bridge")
            }
            _ = try SetupCode.load(pinFile: nil, keptIn: directory)
            #expect(throws: HomeKitError.notStartedYet(path: directory + "/discovery.json")) {
                try HomeKitSetup.read(pinFile: nil, directory: directory, name: "Home Bridge")
            }
            #expect(!FileManager.default.fileExists(atPath: directory + "/discovery.json"), "reading made nothing")
        }
    }
}
