import Foundation
import Testing
import HouseCore
import HouseTesting

/// Floors (`floors:`, `room.floor`), a node's room, and covers (`kind: cover` with a motor of two
/// windings): how the configuration checks them and how phrases resolve on them.
@Suite struct FloorsAndCoversTests {
    static let house = """
        house: {name: Test, timezone: Europe/London, latitude: 51.5, longitude: -0.1}
        nodes: [{id: pi-main, board: generic-8ch-optocoupler, room: hall}]
        floors:
          - {id: ground, name: Ground floor, aliases: [downstairs]}
          - {id: first, name: First floor, aliases: [upstairs]}
        rooms:
          - {id: hall, name: Hall, floor: ground}
          - {id: kitchen, name: Kitchen, floor: ground}
          - {id: bedroom, name: Bedroom, floor: first}
          - {id: study, name: Study, floor: first}
          - {id: garden, name: Garden}
        devices:
          - {id: hall-light, room: hall, kind: light, names: [light], relay: {node: pi-main, channel: 1}}
          - {id: kitchen-light, room: kitchen, kind: light, names: [light], relay: {node: pi-main, channel: 2}}
          - {id: bedroom-light, room: bedroom, kind: light, names: [light], relay: {node: pi-main, channel: 3}}
          - {id: study-lamp, room: study, kind: light, names: [desk lamp], relay: {node: pi-main, channel: 4}}
          - {id: study-blind, room: study, kind: cover, device_class: blind, names: [blind],
             motor: {node: pi-main, up: 5, down: 6, open_time: 20s, close_time: 16s}}
          - {id: garden-light, room: garden, kind: light, names: [light], relay: {node: pi-main, channel: 7}}
        modes:
          - {id: night, devices: {hall-light: OFF, bedroom-light: OFF, study-lamp: OFF}}
          - {id: morning, devices: {study-blind: open, hall-light: ON}}
          - {id: reading, devices: {study-blind: 40%}}
        """

    static func configuration() throws -> HouseConfiguration {
        try ConfigurationLoader().load(yaml: house, file: "test.yaml", boards: HouseFixtures.boards())
    }

    func errors(_ yaml: String) -> [String] {
        guard let errors = HouseFixtures.configurationErrors(yaml) else {
            Issue.record("expected the configuration to be rejected")
            return []
        }
        return errors
    }

    /// The phrase's outcome in a dry run, with a yes given and the speaker in `room`.
    func say(_ text: String, room: String? = nil) async throws -> [IntentOutcome] {
        let configuration = try Self.configuration()
        let phrases = try PhraseSet.load(contentsOf: URL(fileURLWithPath: HouseFixtures.repositoryRoot + "/config/phrases.yaml"))
        let matcher = try PhraseMatcher(phraseSet: phrases, house: configuration)
        let engine = HouseEngine(configuration: configuration, matcher: matcher)
        let answers = IntentAnswers(confirmed: true, contextRoom: room)
        return await engine.process(phrase: text, source: .cli, answers: answers, dryRun: true).outcomes
    }

    /// The pulses of the outcomes' commands (a cover's winding run), by relay id.
    func runs(_ outcomes: [IntentOutcome]) -> [DeviceID: Duration] {
        var runs: [DeviceID: Duration] = [:]
        for command in outcomes.flatMap(\.commands) {
            if case .pulse(let device, _, let t) = command { runs[device] = t }
        }
        return runs
    }

    func switched(_ outcomes: [IntentOutcome]) -> [DeviceID: DeviceState] {
        var states: [DeviceID: DeviceState] = [:]
        for command in outcomes.flatMap(\.commands) {
            if case .relay(let device, _, let state) = command { states[device] = state }
        }
        return states
    }

    @Test func floorsRoomsAndNodeRoomsAreRead() throws {
        let c = try Self.configuration()
        #expect(c.floors.map(\.id) == ["ground", "first"])
        #expect(c.rooms(onFloor: "first").map(\.id) == ["bedroom", "study"])
        #expect(c.room(id: "garden")?.floor == nil)
        #expect(c.floor(matching: "upstairs")?.id == "first")
        #expect(c.floor(matching: "the ground floor")?.id == "ground")
        #expect(c.node(id: "pi-main")?.room == "hall")
        #expect(c.localNode(hostName: "anything")?.id == "pi-main", "the only node is this machine's")
        let motor = try #require(c.device(id: "study-blind")?.motor)
        #expect(motor == CoverMotor(node: "pi-main", upChannel: 5, downChannel: 6, openTime: .seconds(20), closeTime: .seconds(16),
                                    endMargin: .seconds(2), deviceClass: .blind), "the end margin is a tenth of the longer travel")
        #expect(c.mode(id: "morning")?.covers == ["study-blind": 100] && c.mode(id: "morning")?.devices == ["hall-light": .on])
        #expect(c.mode(id: "reading")?.covers == ["study-blind": 40])
    }

    @Test func badFloorsCoversAndNodeRoomsAreLocatedErrors() {
        let unknownFloor = errors(Self.house.replacingOccurrences(of: "{id: study, name: Study, floor: first}", with: "{id: study, name: Study, floor: attic}"))
        #expect(unknownFloor.contains { $0.hasPrefix("10:37:") && $0.contains("unknown floor 'attic'") }, "\(unknownFloor)")
        let clash = errors(Self.house.replacingOccurrences(of: "aliases: [upstairs]", with: "aliases: [upstairs, study]"))
        #expect(clash.contains { $0.contains("'study' names both floor 'first' and room 'study'") }, "\(clash)")
        let nodeRoom = errors(Self.house.replacingOccurrences(of: "room: hall}]", with: "room: loft}]"))
        #expect(nodeRoom.contains { $0.hasPrefix("2:") && $0.contains("unknown room 'loft'") }, "\(nodeRoom)")
        let cover = "motor: {node: pi-main, up: 5, down: 6, open_time: 20s, close_time: 16s}"
        let same = errors(Self.house.replacingOccurrences(of: cover, with: "motor: {node: pi-main, up: 5, down: 5, open_time: 20s}"))
        #expect(same.contains { $0.hasPrefix("18:42:") && $0.contains("windings of device 'study-blind' are both on channel 5") }, "\(same)")
        let taken = errors(Self.house.replacingOccurrences(of: cover, with: "motor: {node: pi-main, up: 4, down: 6, open_time: 20s}"))
        #expect(taken.contains { $0.contains("channel 4 of node 'pi-main' is used by both 'study-lamp' and 'study-blind'") }, "\(taken)")
        let slow = errors(Self.house.replacingOccurrences(of: "open_time: 20s", with: "open_time: 20min"))
        #expect(slow.contains { $0.contains("expected open_time between 1s and 10m, found 20m") }, "\(slow)")
        let noTime = errors(Self.house.replacingOccurrences(of: "open_time: 20s, ", with: ""))
        #expect(noTime.contains { $0.hasPrefix("18:13:") && $0.contains("missing key 'open_time'") }, "\(noTime)")
        let relay = errors(Self.house.replacingOccurrences(of: "names: [blind],", with: "names: [blind], max_on: 1m,"))
        #expect(relay.contains { $0.contains("max_on in device 'study-blind' is not for a cover") }, "\(relay)")
        let noMotor = errors(Self.house.replacingOccurrences(of: cover, with: "relay: {node: pi-main, channel: 5}"))
        #expect(noMotor.contains { $0.contains("relay in device 'study-blind' is not for a cover") }, "\(noMotor)")
        #expect(noMotor.contains { $0.contains("motor") && $0.contains("missing") || $0.contains("expected its motor") }, "\(noMotor)")
        let motorOnLight = errors(Self.house.replacingOccurrences(of: "names: [desk lamp], relay: {node: pi-main, channel: 4}",
                                                                  with: "names: [desk lamp], motor: {node: pi-main, up: 4, down: 8, open_time: 5s}"))
        #expect(motorOnLight.contains { $0.contains("motor in device 'study-lamp' is for covers (kind: cover)") }, "\(motorOnLight)")
        let badClass = errors(Self.house.replacingOccurrences(of: "device_class: blind", with: "device_class: garage"))
        #expect(badClass.contains { $0.contains("expected a cover device class: one of shutter, blind, curtain, shade, awning, window, found 'garage'") }, "\(badClass)")
        let old = errors(Self.house.replacingOccurrences(of: "names: [desk lamp],", with: "names: [desk lamp], direction: up,"))
        #expect(old.contains { $0.contains("direction in device 'study-lamp' is gone: a shutter, blind or curtain is now one device, kind: cover") }, "\(old)")
        let badPosition = errors(Self.house.replacingOccurrences(of: "study-blind: 40%", with: "study-blind: ON"))
        #expect(badPosition.contains { $0.contains("expected a position for cover 'study-blind': open, closed, or 0 (closed) to 100 (open), found 'on'") }, "\(badPosition)")
        let far = errors(Self.house.replacingOccurrences(of: "study-blind: 40%", with: "study-blind: 140"))
        #expect(far.contains { $0.contains("found '140'") }, "\(far)")
    }

    @Test func aFloorIsItsRoomsDevices() async throws {
        #expect(switched(try await say("turn off the upstairs lights")) == ["bedroom-light": .off, "study-lamp": .off])
        #expect(switched(try await say("lights on downstairs")) == ["hall-light": .on, "kitchen-light": .on])
        // A room on no floor (the garden) is in no floor's "everything".
        let everything = switched(try await say("turn everything off on the ground floor"))
        #expect(everything == ["hall-light": .off, "kitchen-light": .off])
        let query = try await say("are any lights on upstairs")
        #expect(Set(query.last?.response?.devices.map(\.device) ?? []) == ["bedroom-light", "study-lamp"])
        #expect(query.last?.dialog == "No lights are on on the first floor.")
        let mode = try await say("night mode upstairs")
        #expect(switched(mode) == ["bedroom-light": .off, "study-lamp": .off], "the hall is downstairs: not in the floor's night mode")
    }

    @Test func aCoverIsOneThingWithAPosition() async throws {
        // Never seen moving: assumed closed, so a run to an end is a full travel and the margin.
        let open = try await say("open the blinds")
        #expect(runs(open) == ["study-blind/up": .seconds(22)])
        #expect(open.last?.dialog == "OK, the study blind is opening.")
        #expect(runs(try await say("close the blind in the study")) == ["study-blind/down": .seconds(18)])
        #expect(runs(try await say("put the blinds down")) == ["study-blind/down": .seconds(18)])
        // A position is a share of the travel that way, without the margin.
        let forty = try await say("set the blinds to 40%")
        #expect(runs(forty) == ["study-blind/up": .seconds(8)])
        #expect(forty.last?.dialog == "OK, the study blind is moving to 40%.")
        #expect(runs(try await say("open the blind halfway")) == ["study-blind/up": .seconds(10)])
        #expect(runs(try await say("raise the blind a quarter of the way")) == ["study-blind/up": .seconds(5)])
        // Stop (and off, the cover's safe state) switches both windings off.
        let stop = try await say("stop the blind")
        #expect(switched(stop) == ["study-blind/up": .off, "study-blind/down": .off])
        #expect(stop.last?.dialog == "OK, the study blind stopped at 0%.")
        #expect(switched(try await say("turn off the blinds")) == ["study-blind/up": .off, "study-blind/down": .off])
        // "On" has no way: answered with what a cover can do.
        let on = try await say("turn on the blind")
        #expect(on.last?.status == .unsupported && on.flatMap(\.commands).isEmpty)
        #expect(on.last?.dialog.contains("I can open, close or stop it, or set it to a position") == true, "\(on.last?.dialog ?? "")")
        let tilt = try await say("tilt the blinds")
        #expect(tilt.last?.status == .unsupported && tilt.last?.dialog.contains("not moved by an amount or tilted") == true)
        let asked = try await say("are the blinds up")
        #expect(asked.last?.dialog == "The study blind is closed, as far as I know: it has no position sensor, and it has not opened or closed fully since I started.")
        // A mode moves its covers.
        #expect(runs(try await say("reading mode")) == ["study-blind/up": .seconds(8)])
    }

    @Test func theSpeakersRoomAnswersHereAndAPronounAsksWhichDevice() async throws {
        #expect(switched(try await say("turn off the lights", room: "kitchen")) == ["kitchen-light": .off])
        #expect(try await say("what's on in here", room: "study").last?.response?.devices.map(\.device).sorted()
                == ["study-blind", "study-lamp"])
        let nowhere = try await say("what's on in here")
        #expect(nowhere.last?.status == .needsValue && nowhere.last?.question == "Which room are you in?")
        let it = try await say("turn it on")
        #expect(it.last?.status == .needsValue && it.last?.question == "Which device?")
        #expect(switched(try await say("night mode in here", room: "hall")) == ["hall-light": .off])
    }

    @Test func powerAndEnergyNameWhatWasAskedAbout() async throws {
        let power = try await say("how much power is the house using right now")
        #expect(power.last?.dialog == "Nothing is on, so nothing is drawing power.")
        let energy = try await say("how much energy did the desk lamp use today")
        #expect(energy.last?.dialog.hasPrefix("The study desk lamp used") == true, "\(energy.last?.dialog ?? "")")
    }

    @Test func powerListsWhatIsOnWithItsWatts() {
        #expect(HouseDialog.power([("bathroom heater", 2000), ("hall light", 20), ("radio", nil)])
                == "About 2.0 kW right now: the bathroom heater 2.0 kW and the hall light 20 W. Also on, with no watts configured: the radio.")
    }
}

/// Cover classes: a class word ("curtains", "blinds", "windows") means the covers of that
/// `device_class`, and a plural never crosses classes; "covers" means them all.
@Suite struct CoverClassTests {
    static let house = """
        house: {name: Test, timezone: Europe/London, latitude: 51.5, longitude: -0.1}
        nodes: [{id: pi-main, board: generic-8ch-optocoupler}]
        rooms: [{id: lounge, name: Lounge}, {id: study, name: Study}]
        devices:
          - {id: lounge-curtain, room: lounge, kind: cover, device_class: curtain, names: [curtain],
             motor: {node: pi-main, up: 1, down: 2, open_time: 20s}}
          - {id: lounge-blind, room: lounge, kind: cover, device_class: blind, names: [blind],
             motor: {node: pi-main, up: 3, down: 4, open_time: 20s}}
          - {id: lounge-window, room: lounge, kind: cover, device_class: window, names: [window],
             motor: {node: pi-main, up: 5, down: 6, open_time: 20s}}
          - {id: study-light, room: study, kind: light, names: [light], relay: {node: pi-main, channel: 7}}
        """

    func say(_ text: String, room: String? = nil) async throws -> [IntentOutcome] {
        let configuration = try ConfigurationLoader().load(yaml: Self.house, file: "test.yaml", boards: HouseFixtures.boards())
        let phrases = try PhraseSet.load(contentsOf: URL(fileURLWithPath: HouseFixtures.repositoryRoot + "/config/phrases.yaml"))
        let engine = HouseEngine(configuration: configuration, matcher: try PhraseMatcher(phraseSet: phrases, house: configuration))
        return await engine.process(phrase: text, source: .cli, answers: IntentAnswers(confirmed: true, contextRoom: room), dryRun: true).outcomes
    }

    /// The covers an outcome moves (each winding's relay id names its cover).
    func moved(_ outcomes: [IntentOutcome]) -> Set<String> {
        Set(outcomes.flatMap(\.commands).map { String($0.device.rawValue.split(separator: "/")[0]) })
    }

    @Test func aClassWordMovesOnlyTheCoversOfItsClass() async throws {
        #expect(moved(try await say("open the curtains in the lounge")) == ["lounge-curtain"])
        #expect(moved(try await say("close the blinds in the lounge")) == ["lounge-blind"])
        #expect(moved(try await say("open the windows", room: "lounge")) == ["lounge-window"])
        #expect(moved(try await say("set the curtains in the lounge to 50%")) == ["lounge-curtain"])
        #expect(moved(try await say("open the lounge covers")) == ["lounge-curtain", "lounge-blind", "lounge-window"])
    }

    @Test func aClassTheRoomHasNoneOfMovesNothing() async throws {
        let outcomes = try await say("open the shutters in the lounge")
        #expect(moved(outcomes).isEmpty)
        #expect(outcomes.allSatisfy { $0.status != .done })
    }
}
