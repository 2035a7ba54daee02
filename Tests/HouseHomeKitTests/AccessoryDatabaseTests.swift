import Foundation
import HouseCore
import HouseTesting
import Testing

@testable import HouseHomeKit

/// The bridge's accessories from the example house: the bridge first, each device as the service
/// of its kind, each mode a switch, aids kept across restarts and configuration changes.
@Suite struct AccessoryDatabaseTests {
    @Test func exampleHouse() throws {
        let configuration = try HouseFixtures.exampleConfiguration()
        let numbers = AccessoryNumbers()
        let database = AccessoryDatabase.bridge(for: configuration, numbers: numbers, firmware: "1.0.0")
        let bridge = try #require(database.accessory(1))
        #expect(bridge.services.map(\.type) == ["3E", "A2"])
        #expect(bridge.services[0].iid == 1)
        func service(_ device: String) -> HAPService? { database.accessory(of: DeviceID(device))?.services.last }
        #expect(service("kitchen-light")?.type == "43")
        #expect(service("office-fan")?.type == "40")
        #expect(service("office-plug")?.type == "47")
        #expect(service("garden-pump")?.type == "49")
        #expect(service("living-shutter")?.type == "8C")
        #expect(service("living-shutter")?.characteristics.map(\.type) == ["23", "6D", "7C", "72"])
        #expect(service("garage-door")?.type == "41")
        #expect(service("back-door")?.type == "80")
        #expect(service("hall-button")?.type == "89")
        #expect(service("bedroom-temperature")?.type == "8A")
        // Every accessory: AccessoryInformation at iid 1 with Identify, and unique iids.
        for accessory in database.accessories {
            #expect(accessory.services[0].type == "3E" && accessory.services[0].iid == 1)
            let iids = accessory.services.flatMap { [$0.iid] + $0.characteristics.map(\.iid) }
            #expect(Set(iids).count == iids.count)
        }
        // Each mode a Switch named after it, after the devices.
        let night = try #require(database.accessory(of: .mode(ModeID("night"))))
        #expect(night.services.last?.type == "49" && night.services.last?.characteristics.map(\.type) == ["23", "25"])
        #expect(night.services.last?.characteristics.first?.role == .constant(.string("Night Mode")))
        #expect(database.accessories.last?.item == .mode(configuration.modes.last!.id))
        let json = String(decoding: database.json(states: [.device(DeviceID("kitchen-light")): HomeKitDeviceState(on: true)]).encoded, as: UTF8.self)
        #expect(json.hasPrefix("{\"accessories\":[{\"aid\":1,"))
        #expect(json.contains("\"type\":\"25\",\"perms\":[\"pr\",\"pw\",\"ev\"],\"format\":\"bool\",\"value\":true"))
    }

    @Test func aidsAreKeptAcrossRestartsAndChanges() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("homekit-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try AccessoryNumbers.load(in: directory, for: [.device("a"), .device("b"), .device("c"), .mode("c")])
        #expect(first.aids == ["a": 2, "b": 3, "c": 4, "mode:c": 5])
        // A restart with a device removed and one added in front: the others keep theirs, the
        // new one takes a number never used, and the removed one's is not given away.
        let second = try AccessoryNumbers.load(in: directory, for: [.device("new"), .device("a"), .device("c")])
        #expect(second.aids["a"] == 2 && second.aids["c"] == 4 && second.aids["new"] == 6)
        let third = try AccessoryNumbers.load(in: directory, for: [.device("b")])
        #expect(third.aids["b"] == 3)
    }
}
