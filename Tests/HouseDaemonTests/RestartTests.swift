import Foundation
import HouseCore
import HouseGPIO
import HouseTesting
import Testing
@testable import HouseDaemon

/// A restart is not a power cut: in the same boot (the kernel's boot id recorded with the state)
/// every relay keeps the state the killed controller left, requested with that value so the line
/// never changes, and a max-on watchdog resumes; after a new boot `power_on` applies.
@Suite final class RestartTests {
    let directory = NSTemporaryDirectory() + "housectl-restart-\(UUID().uuidString)"
    deinit { try? FileManager.default.removeItem(atPath: directory) }
    /// The fixture's clock start (2026-11-24 12:00 UTC).
    let start = Date(timeIntervalSince1970: 1_795_521_600)

    /// What a controller killed with SIGKILL leaves: the kitchen light on (`power_on` off) for a
    /// minute, the heater on (`max_on: 2h`) for 90 minutes, and its boot id.
    func leaveKilledState(boot: String) throws {
        let store = try StateStore(path: directory + "/housectl.sqlite")
        try store.saveRelayState(device: "kitchen-light", state: .on, at: start - 60)
        try store.saveRelayState(device: "bathroom-heater", state: .on, at: start - 90 * 60)
        try store.saveBootID(boot)
        try store.close()
    }

    @Test func theSameBootKeepsEveryRelayWithoutAnEdgeAndTheWatchdogResumes() async throws {
        try leaveKilledState(boot: "boot-a")
        let clock = ManualClock(start: start)
        try await withController(stateDirectory: directory, clock: clock, bootID: "boot-a") { f in
            // Active-low board: on is the low level. Requested so, with no edge after it.
            #expect(f.physicalLevel(of: "kitchen-light") == false)
            #expect(f.physicalLevel(of: "bathroom-heater") == false)
            #expect(f.edges(of: "kitchen-light").isEmpty && f.edges(of: "bathroom-heater").isEmpty)
            #expect(f.controller.powerOnDecisions.first { $0.device == "kitchen-light" }?.reason == .keptAcrossRestart)
            // The heater had 30 of its 120 minutes left: the watchdog ends it then, not 2 h on.
            let mqtt = try await f.mqttClient()
            let heater = try await mqtt.subscribe(to: "house/bathroom/bathroom-heater/state")
            clock.advance(by: .seconds(31 * 60))
            _ = try await heater.first("the heater switched off by the resumed watchdog") { $0.string == "OFF" }
            #expect(f.physicalLevel(of: "bathroom-heater") == true)
            await mqtt.disconnect()
        }
    }

    /// Stopping leaves a relay as it is unless the device asks otherwise; relays with a pulse or
    /// a max-on (a heater, a motor winding, a door button) always go off.
    @Test func aStopLeavesRelaysAsTheyAreUnlessTheDeviceAsks() throws {
        let configuration = try HouseFixtures.exampleConfiguration()
        #expect(configuration.device(id: "hall-light")?.shutdown == .leave)
        #expect(configuration.device(id: "bathroom-heater")?.shutdown == .off, "the heater says shutdown: off")
        let layout = try RelayLayout(configuration: configuration, node: "pi-main")
        #expect(layout.channel(device: "hall-light")?.shutdown == .leave)
        #expect(layout.channel(device: "living-shutter/up")?.shutdown == .off, "a cover's winding always goes off")
        #expect(layout.channel(device: "garden-pump")?.shutdown == nil, "not a relay of pi-main")
    }

    @Test func aNewBootAppliesPowerOn() async throws {
        try leaveKilledState(boot: "boot-a")
        try await withController(stateDirectory: directory, bootID: "boot-b") { f in
            // power_on: off (the default) for the kitchen light and the heater.
            #expect(f.physicalLevel(of: "kitchen-light") == true)
            #expect(f.physicalLevel(of: "bathroom-heater") == true)
            #expect(f.controller.powerOnDecisions.first { $0.device == "kitchen-light" }?.reason == .policyOff)
        }
    }
}
