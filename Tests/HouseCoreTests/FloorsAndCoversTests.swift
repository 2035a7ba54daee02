import Foundation
import Testing
import HouseCore
import HouseTesting

/// Floors (`floors:`, `room.floor`), a node's room, and covers made of two windings
/// (`direction: up|down`): how the configuration checks them and how phrases resolve on them.
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
          - {id: study-blind-up, room: study, kind: shutter, names: [blind up], relay: {node: pi-main, channel: 5},
             interlock: study-blind, direction: up}
          - {id: study-blind-down, room: study, kind: shutter, names: [blind down], relay: {node: pi-main, channel: 6},
             interlock: study-blind, direction: down}
          - {id: garden-light, room: garden, kind: light, names: [light], relay: {node: pi-main, channel: 7}}
        modes:
          - {id: night, devices: {hall-light: OFF, bedroom-light: OFF, study-lamp: OFF}}
        """

    static func configuration() throws -> HouseConfiguration {
        try ConfigurationLoader().load(yaml: house, file: "test.yaml", boards: HouseFixtures.boards())
    }

    func errors(_ yaml: String) -> [String] {
        do {
            _ = try ConfigurationLoader().load(yaml: yaml, file: "test.yaml", boards: HouseFixtures.boards())
        } catch {
            return error.diagnostics.map { "\($0.line):\($0.column): \($0.message)" }
        }
        Issue.record("expected the configuration to be rejected")
        return []
    }

    /// The phrase's outcome in a dry run, with a yes given and the speaker in `room`.
    func say(_ text: String, room: String? = nil) async throws -> [IntentOutcome] {
        let configuration = try Self.configuration()
        let phrases = try PhraseSet.load(contentsOf: URL(fileURLWithPath: HouseFixtures.repositoryRoot + "/config/phrases.yaml"))
        let matcher = try PhraseMatcher(phraseSet: phrases, house: configuration)
        let pipeline = IntentPipeline(service: HouseService(configuration: configuration))
        let answers = IntentAnswers(confirmed: true, contextRoom: room)
        return await PhraseRun.run(matcher.interpret(text), answers: answers) { intent in
            await pipeline.process(intent, source: .cli, answers: answers, dryRun: true)
        }.outcomes
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
        #expect(c.device(id: "study-blind-up")?.direction == .up)
    }

    @Test func badFloorsDirectionsAndNodeRoomsAreLocatedErrors() {
        let unknownFloor = errors(Self.house.replacingOccurrences(of: "{id: study, name: Study, floor: first}", with: "{id: study, name: Study, floor: attic}"))
        #expect(unknownFloor.contains { $0.hasPrefix("10:37:") && $0.contains("unknown floor 'attic'") }, "\(unknownFloor)")
        let clash = errors(Self.house.replacingOccurrences(of: "aliases: [upstairs]", with: "aliases: [upstairs, study]"))
        #expect(clash.contains { $0.contains("'study' names both floor 'first' and room 'study'") }, "\(clash)")
        let nodeRoom = errors(Self.house.replacingOccurrences(of: "room: hall}]", with: "room: loft}]"))
        #expect(nodeRoom.contains { $0.hasPrefix("2:") && $0.contains("unknown room 'loft'") }, "\(nodeRoom)")
        let twoUps = errors(Self.house.replacingOccurrences(of: "interlock: study-blind, direction: down", with: "interlock: study-blind, direction: up"))
        #expect(twoUps.contains { $0.contains("interlock group 'study-blind' has two up windings") }, "\(twoUps)")
        let noGroup = errors(Self.house.replacingOccurrences(of: "interlock: study-blind, direction: down", with: "direction: down"))
        #expect(noGroup.contains { $0.contains("direction in device 'study-blind-down' needs an interlock group") }, "\(noGroup)")
        let sideways = errors(Self.house.replacingOccurrences(of: "direction: down", with: "direction: sideways"))
        #expect(sideways.contains { $0.contains("expected direction: one of up, down, found 'sideways'") }, "\(sideways)")
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

    @Test func aCoverIsOneThingWithTwoWindings() async throws {
        let open = try await say("open the blinds")
        #expect(switched(open) == ["study-blind-up": .on])
        #expect(open.last?.dialog == "OK, the study blind is going up.")
        #expect(switched(try await say("close the blind in the study")) == ["study-blind-down": .on])
        #expect(switched(try await say("put the blinds down")) == ["study-blind-down": .on])
        // Naming a winding with the other way's verb moves the cover that way.
        #expect(switched(try await say("close the blind up")) == ["study-blind-down": .on])
        let stop = try await say("stop the blind")
        #expect(switched(stop) == ["study-blind-up": .off, "study-blind-down": .off])
        #expect(stop.last?.dialog == "OK, the study blind is stopped.")
        // "On" has no way: asked, never guessed.
        let on = try await say("turn on the blind")
        #expect(on.last?.status == .needsChoice && switched(on).isEmpty)
        let asked = try await say("are the blinds up")
        #expect(asked.last?.dialog.contains("no position sensor") == true)
    }

    @Test func theSpeakersRoomAnswersHereAndAPronounAsksWhichDevice() async throws {
        #expect(switched(try await say("turn off the lights", room: "kitchen")) == ["kitchen-light": .off])
        #expect(try await say("what's on in here", room: "study").last?.response?.devices.map(\.device).sorted()
                == ["study-blind-down", "study-blind-up", "study-lamp"])
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
