import Foundation
import HouseCore
import HouseTesting
import Testing

/// `inputs:`: buttons, contacts and motion sensors on GPIO lines, how the configuration reads
/// them and which mistakes it refuses, each at its line and column.
@Suite struct InputConfigurationTests {
    static let house = """
        house: {name: Test, timezone: Europe/London, latitude: 51.5, longitude: -0.1}
        nodes: [{id: pi-main, board: generic-8ch-optocoupler}]
        rooms: [{id: hall, name: Hall}, {id: kitchen, name: Kitchen}]
        devices:
          - {id: hall-light, room: hall, kind: light, names: [light], relay: {node: pi-main, channel: 1}}
        inputs:
          - {id: hall-button, room: hall, kind: button, names: [wall button], node: pi-main, line: 17, long_press: 1s}
          - {id: back-door, room: kitchen, kind: contact, device_class: door, names: [back door], node: pi-main, line: 27, active_low: false}
          - {id: hall-pir, room: hall, kind: motion, node: pi-main, line: 22, bias: pull-down, debounce: 200ms}
        modes:
          - {id: night, devices: {hall-light: OFF}}
        rules:
          - {id: wall, when: {button: hall-button, press: double}, intent: {device: hall-light, action: toggle}}
          - {id: door, when: {device: back-door, state: ON}, intent: {device: hall-light, action: on}}
        """

    func load(_ yaml: String) throws -> HouseConfiguration {
        try ConfigurationLoader().load(yaml: yaml, file: "test.yaml", boards: HouseFixtures.boards())
    }

    func errors(_ yaml: String) -> [String] {
        guard let errors = HouseFixtures.configurationErrors(yaml) else {
            Issue.record("expected the configuration to be rejected")
            return []
        }
        return errors
    }

    @Test func inputsAreDevicesOfTheirKindWithTheirLine() throws {
        let c = try load(Self.house)
        let button = try #require(c.device(id: "hall-button"))
        #expect(button.kind == .button && button.node == "pi-main")
        #expect(button.input == GPIOInput(node: "pi-main", line: 17, longPress: .seconds(1)))
        #expect(c.device(id: "back-door")?.input == GPIOInput(node: "pi-main", line: 27, activeLow: false, deviceClass: "door"))
        #expect(c.device(id: "hall-pir")?.input == GPIOInput(node: "pi-main", line: 22, bias: .pullDown, debounce: .milliseconds(200), deviceClass: "motion"))
        #expect(c.rules.first?.trigger == .button(device: "hall-button", press: .double))
        #expect(c.rules.last?.trigger == .deviceState(device: "back-door", state: .on))
        #expect(button.kind.supportedActions.isEmpty, "an input is read, never switched")
    }

    /// A sensor's `stale_after` and a rule on its value crossing a threshold.
    @Test func sensorStalenessAndThresholdRules() throws {
        let sensor = """
              - {id: temp, room: hall, kind: sensor, mqtt: {state_topic: z/t, json_field: t}, stale_after: 30m}
            inputs:
            """
        let house = Self.house.replacingOccurrences(of: "\ninputs:\n", with: "\n" + sensor + "\n")
            + "\n  - {id: warm, when: {device: temp, above: 25}, intent: {device: hall-light, action: \"on\"}}"
        let c = try load(house)
        if case .sensor(let source)? = c.device(id: "temp")?.endpoint { #expect(source.staleAfter == .seconds(1800)) } else { Issue.record("no sensor") }
        #expect(c.rules.last?.trigger == .sensor(device: "temp", above: 25, below: nil))
        let notSensor = errors(house.replacingOccurrences(of: "{device: temp, above: 25}", with: "{device: hall-light, above: 25}"))
        #expect(notSensor.contains { $0.contains("above and below in rule 'warm' are for sensors (kind: sensor); 'hall-light' is not one") }, "\(notSensor)")
        let empty = errors(house.replacingOccurrences(of: "above: 25}", with: "above: 25, below: 20}"))
        #expect(empty.contains { $0.contains("above (25.0) must be less than below (20.0) in rule 'warm'") }, "\(empty)")
        let stale = errors(house.replacingOccurrences(of: "stale_after: 30m", with: "stale_after: 1s"))
        #expect(stale.contains { $0.contains("expected stale_after between 10s and 7d, found 1s") }, "\(stale)")
        let onLight = errors(house.replacingOccurrences(of: "names: [light], relay", with: "names: [light], stale_after: 1h, relay"))
        #expect(onLight.contains { $0.contains("stale_after in device 'hall-light' is for sensors (kind: sensor)") }, "\(onLight)")
    }

    @Test func mistakesAreLocated() {
        let twice = errors(Self.house.replacingOccurrences(of: "line: 22", with: "line: 17"))
        #expect(twice.contains { $0.hasPrefix("9:") && $0.contains("line 17 of node 'pi-main' is used by both inputs 'hall-button' and 'hall-pir'") }, "\(twice)")
        let relay = errors(Self.house.replacingOccurrences(of: "line: 22", with: "line: 5"))
        #expect(relay.contains { $0.contains("line 5 of node 'pi-main' is relay channel 1 ('hall-light'), so input 'hall-pir' cannot use it") }, "\(relay)")
        let unused = errors(Self.house.replacingOccurrences(of: "line: 22", with: "line: 26"))
        #expect(unused.contains { $0.contains("line 26 of node 'pi-main' is relay channel 8 of board 'generic-8ch-optocoupler'") }, "\(unused)")
        let notFree = errors(Self.house.replacingOccurrences(of: "line: 22", with: "line: 2"))
        #expect(notFree.contains { $0.contains("line 2 is not one board 'generic-8ch-optocoupler' leaves for inputs (input_lines: 17, 27, 22") }, "\(notFree)")
        let kind = errors(Self.house.replacingOccurrences(of: "kind: motion", with: "kind: radar"))
        #expect(kind.contains { $0.hasPrefix("9:38:") && $0.contains("expected an input kind: one of button, contact, motion, found 'radar'") }, "\(kind)")
        let press = errors(Self.house.replacingOccurrences(of: "line: 27, active_low: false", with: "line: 27, long_press: 2s"))
        #expect(press.contains { $0.contains("long_press in input 'back-door' is for buttons (kind: button)") }, "\(press)")
        let cls = errors(Self.house.replacingOccurrences(of: "device_class: door", with: "device_class: motion"))
        #expect(cls.contains { $0.contains("expected a contact's device class: one of door, window, garage_door, opening, lock, found 'motion'") }, "\(cls)")
        let slow = errors(Self.house.replacingOccurrences(of: "debounce: 200ms", with: "debounce: 2s"))
        #expect(slow.contains { $0.contains("expected debounce between 0s and 1s, found 2s") }, "\(slow)")
        let duplicate = errors(Self.house.replacingOccurrences(of: "id: hall-pir", with: "id: hall-light"))
        #expect(duplicate.contains { $0.contains("input id 'hall-light' is also a device's id") }, "\(duplicate)")
        let mode = errors(Self.house.replacingOccurrences(of: "{hall-light: OFF}", with: "{back-door: OFF}"))
        #expect(mode.contains { $0.contains("device 'back-door' in mode 'night' is an input: a mode can only switch devices") }, "\(mode)")
        let notAButton = errors(Self.house.replacingOccurrences(of: "button: hall-button, press: double", with: "button: back-door"))
        #expect(notAButton.contains { $0.contains("'back-door' in rule 'wall' is a contact, not a button") }, "\(notAButton)")
        let badPress = errors(Self.house.replacingOccurrences(of: "press: double", with: "press: triple"))
        #expect(badPress.contains { $0.contains("expected a press: one of single, double, long, found 'triple'") }, "\(badPress)")
        let noNode = errors(Self.house.replacingOccurrences(of: "node: pi-main, line: 27", with: "node: pi-shed, line: 27"))
        #expect(noNode.contains { $0.contains("unknown node 'pi-shed'") }, "\(noNode)")
    }
}
