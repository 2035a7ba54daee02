import Foundation
import HouseCore
import HouseTesting
import Testing

/// The example's garage door: a cover worked by a push-button opener on pi-garage, with an open
/// and a closed contact. Where it is comes from the contacts and the last press; a command
/// presses only when that moves it where it is asked to go.
@Suite struct OpenerTests {
    let h: HouseHarness
    init() throws { h = try HouseHarness(node: "pi-garage") }

    var door: Device { h.configuration.device(id: "garage-door")! }

    func say(_ action: HouseAction) async -> IntentOutcome {
        await h.engine.process(.control(HouseControlIntent(action: action, device: "garage door")), source: .cli, answers: .none.confirming)
    }

    func contacts(open: Bool, closed: Bool) async {
        await h.engine.noteState("garage-door-open", DeviceState(isOn: open))
        await h.engine.noteState("garage-door-closed", DeviceState(isOn: closed))
        _ = await h.engine.noteOpenerContact(open ? "garage-door-open" : "garage-door-closed")
    }

    @Test func aPressOnlyWhenItMovesTheDoorWhereItIsAsked() async {
        await contacts(open: false, closed: true)
        #expect(await h.engine.openerState(of: door) == .closed)
        let close = await say(.close)
        #expect(close.status == .done && close.commands.isEmpty && close.dialog == "The garage door is already closed.")
        let open = await say(.open)
        #expect(open.commands == [.pulse(device: "garage-door", RelayRef(node: "pi-garage", channel: 1), .seconds(1))])
        #expect(open.dialog == "OK, the garage door is opening.")
        // Still on its closed contact right after the press; once it leaves, it is opening.
        #expect(await h.engine.openerState(of: door) == .closed)
        await contacts(open: false, closed: false)
        #expect(await h.engine.openerState(of: door) == .opening)
        h.clock.advance(by: .seconds(2))
        let again = await say(.open)
        #expect(again.commands.isEmpty && again.dialog == "The garage door is already opening.")
        await contacts(open: true, closed: false)
        #expect(await h.engine.openerState(of: door) == .open)
        #expect(await h.engine.nextOpenerDeadline == nil, "the press is over at the end")
    }

    @Test func notReachingTheEndInTimeIsObstructed() async {
        await contacts(open: true, closed: false)
        _ = await say(.close)
        await contacts(open: false, closed: false)
        #expect(await h.engine.openerState(of: door) == .closing)
        let deadline = await h.engine.nextOpenerDeadline
        #expect(deadline == WallInstant(HouseHarness.defaultStart).advanced(by: .seconds(20)), "15 s travel and a 5 s margin")
        h.clock.advance(by: .seconds(19))
        #expect(await h.engine.expireOpenerPresses().isEmpty)
        h.clock.advance(by: .seconds(1))
        let expired = await h.engine.expireOpenerPresses()
        #expect(expired.map(\.0.id) == ["garage-door"] && expired.map(\.1) == [.obstructed])
        #expect(await h.engine.openerState(of: door) == .obstructed)
        let asked = await h.engine.process(.query(QueryHouseStatusIntent(queryType: .deviceStates, device: "garage door")), source: .cli)
        #expect(asked.dialog.contains("may be obstructed"))
        // Stop when it is not moving presses nothing; "off" is stop.
        let stop = await say(.stop)
        #expect(stop.commands.isEmpty && stop.dialog == "The garage door is not moving.")
        // Set to a position: an opener has none.
        var intent = HouseControlIntent(action: .position, device: "garage door")
        intent.position = 50
        let position = await h.engine.process(.control(intent), source: .cli, answers: .none.confirming)
        #expect(position.status == .unsupported && position.dialog.contains("not set it to a position"))
    }

    /// With only a closed contact, a press toward open ends open once its time is up.
    @Test func anEndWithNoContactIsReachedByTime() async throws {
        var config = h.configuration
        config.devices = config.devices.map { d in
            guard var opener = d.opener else { return d }
            opener.openContact = nil
            var d = d
            d.endpoint = .opener(opener)
            return d
        }
        let h = try HouseHarness(configuration: config, node: "pi-garage")
        let door = config.device(id: "garage-door")!
        await h.engine.noteState("garage-door-closed", .on)
        _ = await h.engine.process(.control(HouseControlIntent(action: .open, device: "garage door")), source: .cli, answers: .none.confirming)
        await h.engine.noteState("garage-door-closed", .off)
        #expect(await h.engine.openerState(of: door) == .opening)
        h.clock.advance(by: .seconds(21))
        #expect(await h.engine.openerState(of: door) == .open)
        #expect(await h.engine.expireOpenerPresses().map(\.1) == [.open])
    }

    /// The primary answers from what the owner node published, and says so when it has not.
    @Test func anotherNodesOpenerIsAnsweredFromItsReport() async throws {
        let main = try HouseHarness(node: "pi-main")
        let ask = QueryHouseStatusIntent(queryType: .deviceStates, device: "garage door")
        let unknown = await main.engine.process(.query(ask), source: .cli)
        #expect(unknown.dialog == "I don't know where the garage door is: node pi-garage, which it is wired to, has not said.")
        await main.engine.noteOpenerReport("garage-door", .open)
        #expect(await main.engine.process(.query(ask), source: .cli).dialog == "The garage door is open.")
        // Open already: nothing is sent to pi-garage.
        let open = await main.engine.process(.control(HouseControlIntent(action: .open, device: "garage door")), source: .cli,
                                               answers: .none.confirming)
        #expect(open.commands.isEmpty && open.dialog == "The garage door is already open.")
        let close = await main.engine.process(.control(HouseControlIntent(action: .close, device: "garage door")), source: .cli,
                                                answers: .none.confirming)
        #expect(close.commands == [.publish(device: "garage-door", topic: "house/node/pi-garage/relay",
                                            payload: #"{"device":"garage-door","pulse_ms":1000}"#, state: nil)])
    }
}

/// A garage door opener wired without contacts: nothing says where it is or whether it moves, so
/// open and close are one press each and stop is refused (a press could as well start it).
@Suite struct ContactlessOpenerTests {
    @Test func stopIsRefusedOpenAndCloseArePresses() async throws {
        var configuration = try HouseFixtures.exampleConfiguration()
        let i = try #require(configuration.devices.firstIndex { $0.id == "garage-door" })
        guard case .opener(var opener) = configuration.devices[i].endpoint else { Issue.record("not an opener"); return }
        opener.openContact = nil
        opener.closedContact = nil
        configuration.devices[i].endpoint = .opener(opener)
        let h = try HouseHarness(configuration: configuration, node: "pi-garage")
        func say(_ action: HouseAction) async -> IntentOutcome {
            await h.engine.process(.control(HouseControlIntent(action: action, device: "garage door")), source: .cli, answers: .none.confirming)
        }
        for action in [HouseAction.stop, .off] {
            let stop = await say(action)
            #expect(stop.status == .unsupported && stop.commands.isEmpty, "\(action)")
            #expect(stop.dialog.contains("no contacts"), "\(stop.dialog)")
        }
        let open = await say(.open)
        #expect(open.commands == [.pulse(device: "garage-door", RelayRef(node: "pi-garage", channel: 1), .seconds(1))])
    }
}
