import Foundation
import HouseCore
import HouseMQTT
import HouseTesting
import Testing

@testable import HouseHomeKit

/// The daemon's side of the seam on a whole controller (embedded broker, simulated relays): a
/// HomeKit write is a command on the bus from source `homekit` that switches the relay, the change
/// comes back on the stream, a confirm device is refused with HAP's status for it and the refusal
/// is on `house/events`; modes are switches; a button's press (this node's or another's) is a change.
@Suite(.timeLimit(.minutes(1))) struct ControllerHouseTests {
    /// The next change of `item` on `changes` that satisfies `predicate`.
    static func change(of item: HomeKitItem, on changes: inout AsyncStream<(HomeKitItem, HomeKitDeviceState)>.Iterator,
                       where predicate: (HomeKitDeviceState) -> Bool) async -> HomeKitDeviceState? {
        while let (changed, state) = await changes.next() {
            if changed == item, predicate(state) { return state }
        }
        return nil
    }

    @Test func writesGoOnTheBusAndChangesComeBack() async throws {
        try await withController { fixture in
            let house = ControllerHouse(controller: fixture.controller)
            let mqtt = try await fixture.mqttClient()
            let events = try await mqtt.subscribe(to: "house/events", qos: .atLeastOnce)
            let light = DeviceID("living-ceiling-light")
            #expect(await house.states()[.device(light)]?.on == false)
            // A Tasmota plug that has not reported: not known, never "off".
            #expect(await house.states()[.device(DeviceID("office-plug"))].map { $0.on == nil } == true)
            var changes = house.changes().makeAsyncIterator()
            #expect(await house.perform(.setOn(light, true)) == .done)
            #expect(fixture.relayIsOn(light) == true)
            #expect(await Self.change(of: .device(light), on: &changes) { $0.on == true } != nil)
            // A confirm device from HomeKit (it cannot ask "are you sure?"): refused, visibly.
            let heater = try #require(fixture.controller.configuration.devices.first { $0.confirm && $0.relay != nil })
            let refused = await house.perform(.setOn(heater.id, true))
            #expect(refused.status == HAPStatus.insufficientPrivileges)
            #expect(fixture.relayIsOn(heater.id) != true)
            let event = try await events.first("the refusal on house/events") { $0.string?.contains("\"outcome\":\"refused\"") == true }
            #expect(event.string?.contains("\"source\":\"homekit\"") == true, "\(event.string ?? "")")
            #expect(event.string?.contains("Apple Home") == true, "\(event.string ?? "")")
            await mqtt.disconnect()
        }
    }

    @Test func modesAreSwitches() async throws {
        try await withController { fixture in
            let house = ControllerHouse(controller: fixture.controller)
            var changes = house.changes().makeAsyncIterator()
            #expect(await house.perform(.setMode("night")) == .done)
            #expect(await Self.change(of: .mode("night"), on: &changes) { $0.on == true } != nil)
            let states = await house.states()
            #expect(states[.mode("evening")]?.on == false && states[.mode("movie")]?.on == false)
            // Another mode: night's switch goes off.
            #expect(await house.perform(.setMode("evening")) == .done)
            #expect(await Self.change(of: .mode("night"), on: &changes) { $0.on == false } != nil)
            #expect(await house.states()[.mode("evening")]?.on == true)
            // A mode of one room (movie: the living room) is on while that room is in it.
            #expect(await house.perform(.setMode("movie")) == .done)
            let now = await house.states()
            #expect(now[.mode("movie")]?.on == true && now[.mode("evening")]?.on == false)
            // A mode that needs a yes: refused.
            #expect(await house.perform(.setMode("away")).status == HAPStatus.insufficientPrivileges)
        }
    }

    @Test func buttonPressesAreChanges() async throws {
        try await withController { fixture in
            let house = ControllerHouse(controller: fixture.controller)
            let button = HomeKitItem.device("hall-button")
            #expect(await house.states()[button] == HomeKitDeviceState(presses: 0))
            var changes = house.changes().makeAsyncIterator()
            fixture.chip.press(line: 17, held: .milliseconds(120), clock: fixture.clock)
            let pressed = await Self.change(of: button, on: &changes) { $0.presses == 1 }
            #expect(pressed?.lastPress == .single)
        }
    }

    /// A button wired to another node: its presses come on its event topic, and the primary (the
    /// bridge's node) counts them.
    @Test func anotherNodesButtonPresses() async throws {
        var configuration = try HouseFixtures.exampleConfiguration()
        let index = try #require(configuration.devices.firstIndex { $0.id == "hall-button" })
        guard case .input(var input) = configuration.devices[index].endpoint else {
            Issue.record("the hall button is not an input")
            return
        }
        input.node = "pi-garage"
        input.line = 17
        configuration.devices[index].endpoint = .input(input)
        configuration.rules.removeAll { if case .button = $0.trigger { true } else { false } }
        try await withController(configuration: configuration) { fixture in
            let house = ControllerHouse(controller: fixture.controller)
            var changes = house.changes().makeAsyncIterator()
            let mqtt = try await fixture.mqttClient()
            try await mqtt.publish(to: "house/hall/hall-button/event", payload: #"{"event_type":"double"}"#, qos: .atLeastOnce)
            let pressed = await Self.change(of: .device("hall-button"), on: &changes) { $0.presses == 1 }
            #expect(pressed?.lastPress == .double)
            await mqtt.disconnect()
        }
    }
}
