import Foundation
import Testing
import HouseCore
import HouseTesting

@Suite struct ConfigurationErrorTests {
    static let brokenPath = HouseFixtures.brokenConfigPath

    func diagnostics(path: String) throws -> [ConfigDiagnostic] {
        do {
            _ = try ConfigurationLoader(devicesDirectory: HouseFixtures.devicesDirectory).load(path: path)
        } catch {
            return error.diagnostics
        }
        Issue.record("expected \(path) to be rejected")
        return []
    }

    func diagnostics(yaml: String) -> [ConfigDiagnostic] {
        do {
            _ = try ConfigurationLoader().load(yaml: yaml, file: "test.yaml", boards: HouseFixtures.boards())
        } catch {
            return error.diagnostics
        }
        Issue.record("expected the configuration to be rejected")
        return []
    }

    /// Every error in the broken house is reported in one run, each at its line and column.
    @Test func brokenHouseReportsEveryErrorWithLocation() throws {
        let found = try diagnostics(path: Self.brokenPath)
        let expected: [(Int, Int, String)] = [
            (3, 3, "missing key 'longitude' in house"),
            (4, 13, "unknown time zone 'Europe/Lundon' (did you mean 'Europe/London'?)"),
            (8, 28, "unknown board 'keyestudio-ks0213': no keyestudio-ks0213.yaml in \(HouseFixtures.devicesDirectory) (did you mean 'keyestudio-ks0212'?)"),
            (12, 10, "duplicate room id 'kitchen' (first defined at line 10)"),
            (15, 30, "unknown room 'bedrom' (did you mean 'bedroom'?)"),
            (15, 83, "channel 1 of node 'pi-main' is used by both 'kitchen-light' and 'bedroom-lamp'"),
            (16, 73, "channel 9 is outside board 'generic-8ch-optocoupler'"),
            (17, 54, "expected power drawn when on, in watts (0 or more), found 'lots'"),
            (17, 68, "expected a duration such as 500ms, 90s, 30m, 2h or 1h30m, found 'forever'"),
            (18, 59, "unknown node 'pi-shed'"),
            (20, 100, "interlock group 'blind' spans nodes"),
            (21, 5, "missing key 'id' in device"),
            (21, 27, "found 'toaster'"),
            (21, 36, "unknown key 'colour' in device"),
            (23, 47, "unknown device 'bedroom-lmap' (did you mean 'bedroom-lamp'?)"),
            (27, 22, "found '6:61'"),
            (27, 49, "found 'weekdayz'"),
            (29, 20, "unknown mode 'mornin'"),
            (32, 5, "unknown key 'relevent' in routine (did you mean 'relevant'?)"),
            (33, 37, "expected a mode duration of at most 31d, found 32d"),
        ]
        for (line, column, text) in expected {
            #expect(found.contains { $0.line == line && $0.column == column && $0.message.contains(text) },
                    "missing \(line):\(column) \(text)")
        }
        #expect(found.count == expected.count, "\(found.map(\.description).joined(separator: "\n"))")
        #expect(found.allSatisfy { $0.file == Self.brokenPath })
        #expect(found.first?.description.hasPrefix(Self.brokenPath + ":3:3: error: ") == true)
    }

    @Test func yamlSyntaxErrorIsLocated() {
        let found = diagnostics(yaml: "house:\n  name: [unclosed\nrooms: []\n")
        #expect(found.count == 1)
        #expect(found.first?.message.hasPrefix("YAML syntax:") == true)
        #expect(found.first?.line == 3)
    }

    /// A routine runs with nobody to answer "are you sure?": one whose intent would ask (a
    /// confirm device switched on, a confirm mode, a routine that does) is refused where its
    /// intent is, unless it says `confirmed: true`.
    @Test func aRoutineThatWouldAskForConfirmationMustSaySo() throws {
        func house(_ routines: String) -> String {
            """
            house: {name: H, timezone: UTC, latitude: 50, longitude: 0}
            rooms: [{id: garage, name: Garage}, {id: hall, name: Hall}]
            devices:
              - {id: garage-door, room: garage, kind: door, confirm: true, mqtt: {command_topic: g/set}}
              - {id: hall-light, room: hall, kind: light, mqtt: {command_topic: h/set}}
            modes:
              - {id: away, confirm: true, devices: {hall-light: OFF}}
              - {id: home, devices: {hall-light: ON}}
            routines:
            \(routines)
            """
        }
        let asking = house("""
          - {id: open, shortcut: Open up, run_at: "07:00", intent: {device: garage-door, action: on}}
          - {id: leave, shortcut: Leaving, run_at: "08:00", intent: {mode: away}}
          - {id: chain, shortcut: Chain, intent: {routine: open}}
          - {id: home, shortcut: Home, run_at: "18:00", intent: {mode: home}}
        """)
        let found = diagnostics(yaml: asking)
        #expect(found.map(\.line) == [10, 11, 12], "\(found.map(\.description))")
        #expect(found.first?.message.contains("routine 'open' would ask") == true)
        #expect(found.first?.message.contains("confirmed: true") == true)
        let line = asking.split(separator: "\n")[9]
        let intentColumn = line.distance(from: line.startIndex, to: line.range(of: "{device")!.lowerBound) + 1
        #expect(found.first?.column == intentColumn, "at the intent: \(found.map(\.description))")
        let confirmed = house("""
          - {id: open, shortcut: Open up, run_at: "07:00", confirmed: true, intent: {device: garage-door, action: on}}
          - {id: leave, shortcut: Leaving, run_at: "08:00", confirmed: true, intent: {mode: away}}
          - {id: chain, shortcut: Chain, confirmed: true, intent: {routine: open}}
        """)
        let configuration = try ConfigurationLoader().load(yaml: confirmed, file: "test.yaml", boards: HouseFixtures.boards())
        #expect(configuration.routines.map(\.confirmed) == [true, true, true])
    }

    @Test func wrongTypesAreReportedWithWhatWasExpected() {
        let yaml = """
        house: {name: H, timezone: UTC, latitude: 95, longitude: 0}
        mqtt: {broker: embeded, port: 70000}
        rooms: {id: kitchen}
        devices:
          - {id: d, room: nowhere, kind: light, confirm: maybe, relay: {node: pi-main, channel: 1}, mqtt: {command_topic: x}}
        """
        let found = diagnostics(yaml: yaml)
        let messages = found.map(\.message)
        #expect(messages.contains { $0.contains("latitude in degrees, -90...90, found '95'") })
        #expect(messages.contains { $0.contains("found 'embeded' (did you mean 'embedded'?)") })
        #expect(messages.contains { $0.contains("TCP port, 1...65535, found '70000'") })
        #expect(messages.contains { $0.contains("expected a list of rooms, found a mapping") })
        #expect(messages.contains { $0.contains("expected true or false, found 'maybe'") })
        #expect(messages.contains { $0.contains("has both relay and mqtt") })
        #expect(messages.contains { $0.contains("unknown room 'nowhere'") })
        #expect(found.allSatisfy { $0.line >= 1 && $0.column >= 1 })
    }

    @Test func interlockDeadTimeIsReadAndItsMistakesLocated() throws {
        let nodes = "nodes: [{id: pi-main, board: waveshare-rpi-relay-board}]"
        let good = """
        house: {name: H, timezone: UTC, latitude: 0, longitude: 0}
        \(nodes)
        rooms: [{id: hall}]
        devices:
          - {id: up, room: hall, kind: switch, relay: {node: pi-main, channel: 1}, interlock: m, interlock_dead_time: 800ms}
          - {id: down, room: hall, kind: switch, relay: {node: pi-main, channel: 2}, interlock: m}
        """
        let config = try ConfigurationLoader().load(yaml: good, file: "test.yaml", boards: HouseFixtures.boards())
        #expect(config.device(id: "up")?.interlockDeadTime == .milliseconds(800))
        #expect(config.device(id: "down")?.interlockDeadTime == nil)

        let bad = """
        house: {name: H, timezone: UTC, latitude: 0, longitude: 0}
        \(nodes)
        rooms: [{id: hall}]
        devices:
          - {id: up, room: hall, kind: switch, relay: {node: pi-main, channel: 1}, interlock: m, interlock_dead_time: 800ms}
          - {id: down, room: hall, kind: switch, relay: {node: pi-main, channel: 2}, interlock: m, interlock_dead_time: 1s}
          - {id: lamp, room: hall, kind: light, relay: {node: pi-main, channel: 3}, interlock_dead_time: 1s}
          - {id: fan, room: hall, kind: fan, relay: {node: pi-main, channel: 4}, interlock: f, interlock_dead_time: 2min}
        """
        let found = diagnostics(yaml: bad)
        let mismatch = found.first { $0.message.contains("interlock group 'm' has two dead times: 800ms in 'up' and 1s in 'down'") }
        #expect(mismatch?.line == 6)
        #expect(found.contains { $0.message.contains("interlock_dead_time in device 'lamp' needs an interlock group") && $0.line == 7 })
        #expect(found.contains { $0.message.contains("an interlock dead time of at most 60s, found 2m") && $0.line == 8 })
    }

    @Test func interlockNeedsARelayAndReferencesAreChecked() {
        let yaml = """
        house: {name: H, timezone: UTC, latitude: 0, longitude: 0}
        rooms: [{id: office}]
        devices:
          - {id: plug, room: office, kind: plug, interlock: g, mqtt: {command_topic: "cmnd/+/POWER"}}
        rules:
          - {when: {device: plugg, state: ON}, intent: {routine: nope}}
        permissions:
          mqtt: {deny_devices: [garage-door]}
          robot: {}
        """
        let messages = diagnostics(yaml: yaml).map(\.message)
        #expect(messages.contains { $0.contains("interlock in device 'plug' needs a relay") })
        #expect(messages.contains { $0.contains("command topic without wildcards") })
        #expect(messages.contains { $0.contains("unknown device 'plugg' (did you mean 'plug'?)") })
        #expect(messages.contains { $0.contains("unknown routine 'nope'") })
        #expect(messages.contains { $0.contains("unknown device 'garage-door'") })
        #expect(messages.contains { $0.contains("unknown key 'robot' in permissions") })
    }

    @Test func boardProfileErrorsAreLocated() {
        let yaml = "name: Two\nactive_low: perhaps\nchannels: {1: 17, 2: 17, 3: x}\n"
        do {
            _ = try ConfigurationLoader.parseBoard(yaml: yaml, id: "two")
            Issue.record("expected the board to be rejected")
        } catch {
            let d = error.diagnostics
            #expect(d.contains { $0.line == 2 && $0.message.contains("found 'perhaps'") })
            #expect(d.contains { $0.line == 3 && $0.message.contains("line 17 is wired to both channel 1 and channel 2") })
            #expect(d.contains { $0.line == 3 && $0.message.contains("GPIO line offset") })
        }
    }

    @Test func defaultDevicesDirectoryIsNextToTheConfigDirectory() {
        #expect(ConfigurationLoader.defaultDevicesDirectory(forConfigAt: "/srv/house/config/house.yaml") == "/srv/house/devices")
    }

    @Test func unreadableFileIsAnErrorNotACrash() {
        do {
            _ = try ConfigurationLoader().load(path: "/nonexistent/house.yaml")
            Issue.record("expected an error")
        } catch {
            #expect(error.diagnostics.first?.message.contains("cannot read") == true)
        }
    }
}
