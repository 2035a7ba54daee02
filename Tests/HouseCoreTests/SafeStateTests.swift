import HouseCore
import HouseTesting
import Testing

/// A device switched to its safe state (a heater, pump or plug off) needs no yes and no right to
/// confirm, from any source; anything else on a `confirm: true` device still does. The example
/// house: the bathroom heater is `confirm: true`, MQTT may not confirm (`confirm_devices: false`)
/// and may not touch the garage door at all; the garage door is a pulsed opener.
@Suite struct SafeStateTests {
    let h: HouseHarness
    init() throws { h = try HouseHarness() }

    func control(_ device: String, _ action: HouseAction, room: String? = nil) -> HouseIntent {
        .control(HouseControlIntent(room: room, action: action, device: device))
    }

    func heaterRelay() throws -> RelayRef { try #require(h.configuration.device(id: "bathroom-heater")?.relay) }

    @Test func mqttSwitchesTheHeaterOffWithoutAYesButNotOn() async throws {
        await h.engine.noteState("bathroom-heater", .on)
        let off = await h.engine.process(control("heater", .off), source: .mqtt)
        #expect(off.status == .done)
        #expect(await h.relays.calls == [.set(try heaterRelay(), on: false)])
        let on = await h.engine.process(control("heater", .on), source: .mqtt, answers: .none.confirming)
        #expect(on.status == .refused)
        #expect(await h.relays.calls.count == 1)
    }

    @Test func aPersonIsAskedBeforeOnButNotBeforeOff() async throws {
        let on = await h.engine.process(control("heater", .on), source: .cli)
        #expect(on.status == .needsConfirmation)
        #expect(await h.relays.calls.isEmpty)
        let off = await h.engine.process(control("heater", .off), source: .cli)
        #expect(off.status == .done)
        #expect(await h.relays.calls == [.set(try heaterRelay(), on: false)])
    }

    @Test func aPulsedOpenerHasNoSafeActionAndADeniedDeviceStaysDenied() async {
        let close = await h.engine.process(control("garage door", .close), source: .cli)
        #expect(close.status == .needsConfirmation)
        let fromMQTT = await h.engine.process(control("garage door", .close), source: .mqtt)
        #expect(fromMQTT.status == .refused)
        #expect(await h.relays.calls.isEmpty)
    }

    @Test func safeActionsByKind() throws {
        let heater = try #require(h.configuration.device(id: "bathroom-heater"))
        #expect(heater.isSafe(.off) && heater.isSafe(.close))
        #expect(!heater.isSafe(.on) && !heater.isSafe(.toggle) && !heater.isSafe(.open))
        let door = try #require(h.configuration.device(id: "garage-door"))
        #expect(HouseAction.allCases.allSatisfy { !door.isSafe($0) })
        let cover = try #require(h.configuration.device(id: "living-shutter"))
        #expect(cover.isSafe(.stop) && cover.isSafe(.off))  // off is a cover's stop
        #expect(!cover.isSafe(.close) && !cover.isSafe(.open) && !cover.isSafe(.position))  // they run a winding
    }
}
