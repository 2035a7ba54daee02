import Foundation
import HouseCore
import HouseTesting
import Testing

@testable import HouseHomeKit

/// The daemon's side of the seam on a whole controller (embedded broker, simulated relays): a
/// HomeKit write is a command on the bus from source `homekit` that switches the relay, the change
/// comes back on the stream, and a confirm device is refused with HAP's status for it.
@Suite struct ControllerHouseTests {
    @Test(.timeLimit(.minutes(1))) func writesGoOnTheBusAndChangesComeBack() async throws {
        try await withController { fixture in
            let house = ControllerHouse(controller: fixture.controller)
            let light = DeviceID("living-ceiling-light")
            #expect(await house.states()[light]?.on == false)
            let changes = house.changes()
            #expect(await house.perform(.setOn(light, true)) == .done)
            #expect(fixture.relayIsOn(light) == true)
            var iterator = changes.makeAsyncIterator()
            while let (device, state) = await iterator.next() {
                if device == light, state.on == true { break }
            }
            // A confirm device from HomeKit (it cannot ask "are you sure?"): refused, visibly.
            let heater = try #require(fixture.controller.configuration.devices.first { $0.confirm && $0.relay != nil })
            let refused = await house.perform(.setOn(heater.id, true))
            #expect(refused.status == HAPStatus.insufficientPrivileges)
            #expect(fixture.relayIsOn(heater.id) != true)
        }
    }
}
