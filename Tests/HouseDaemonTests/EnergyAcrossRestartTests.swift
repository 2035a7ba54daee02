import Foundation
import HouseCore
import HouseMQTT
import HouseTesting
import Testing

/// Energy is published once a minute while something is on (not only when something switches),
/// per device and for the house, and continues across a restart instead of dropping to 0.
@Suite(.timeLimit(.minutes(1)))
final class EnergyAcrossRestartTests {
    let directory = NSTemporaryDirectory() + "housectl-energy-\(UUID().uuidString)"
    deinit { try? FileManager.default.removeItem(atPath: directory) }

    @Test func energyGrowsEveryMinuteAndContinuesAfterARestart() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_795_521_600))  // 2026-11-24 12:00 UTC
        let lightOn = HouseIntent.control(HouseControlIntent(room: "living-room", action: .on, device: "living-ceiling-light"))
        let meter = "house/living-room/living-ceiling-light/energy"
        try await withController(stateDirectory: directory, clock: clock, bootID: "boot-e") { f in
            let mqtt = try await f.mqttClient()
            let device = try await mqtt.subscribe(to: meter, qos: .atLeastOnce)
            #expect(try await device.next("the light's energy at start").string == "0.000")
            #expect(try await f.client().send(.intent(lightOn)).status == .done)
            // Half an hour of the 60 W light, with no command: 0.030 kWh, from the minute tick.
            clock.advance(by: .seconds(30 * 60))
            _ = try await device.first("0.030 kWh for the light") { $0.string == "0.030" }
            await mqtt.disconnect()
        }
        // Restarted in the same boot: the light stays on and its half hour is not forgotten.
        try await withController(stateDirectory: directory, clock: clock, bootID: "boot-e") { f in
            let mqtt = try await f.mqttClient()
            let house = try await mqtt.subscribe(to: "house/energy/state", qos: .atLeastOnce)
            #expect(try await house.next("the house's energy after the restart").string == "0.030")
            let device = try await mqtt.subscribe(to: meter, qos: .atLeastOnce)
            #expect(try await device.next("the light's energy after the restart").string == "0.030")
            clock.advance(by: .seconds(30 * 60))
            _ = try await device.first("0.060 kWh for the light") { $0.string == "0.060" }
            await mqtt.disconnect()
        }
    }
}
