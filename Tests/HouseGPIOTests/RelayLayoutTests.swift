import Testing
import HouseGPIO
import HouseTesting

@Suite struct RelayLayoutTests {
    @Test func layoutTakesTheNodesDevicesFromItsBoard() throws {
        let layout = try RelayLayout(configuration: GPIOFixtures.configuration(), node: "pi-main")
        #expect(layout.chip == "gpiochip0")
        #expect(layout.channels.map(\.device) == ["bedroom-light", "heater", "garage-door", "shutter-up", "shutter-down", "pump"])
        #expect(layout.channels.map(\.line) == [5, 6, 13, 16, 19, 20])
        #expect(layout.channels.allSatisfy { $0.activeLow })
        #expect(layout.unusedChannels == [7: 21, 8: 26])
        #expect(layout.groups == [RelayLayout.InterlockGroup(id: "shutter", members: ["shutter-up", "shutter-down"], deadTime: .milliseconds(500))])
        #expect(layout.channel(device: "heater")?.shutdown == .off, "max-on relays always go off at shutdown")
    }

    @Test func aGroupTakesTheDeadTimeItsMembersGive() throws {
        var config = GPIOFixtures.configuration()
        let up = try #require(config.devices.firstIndex { $0.id == "shutter-up" })
        config.devices[up].interlockDeadTime = .seconds(2)
        let layout = try RelayLayout(configuration: config, node: "pi-main")
        #expect(layout.groups.first { $0.id == "shutter" }?.deadTime == .seconds(2))
        // A caller's own dead time still wins.
        let overridden = try RelayLayout(configuration: config, node: "pi-main", deadTimes: ["shutter": .milliseconds(100)])
        #expect(overridden.groups.first { $0.id == "shutter" }?.deadTime == .milliseconds(100))
    }

    @Test func nodeChipOverridesTheBoards() throws {
        var config = GPIOFixtures.configuration()
        config.nodes[0].chip = "pinctrl-rp1"
        #expect(try RelayLayout(configuration: config, node: "pi-main").chip == "pinctrl-rp1")
    }

    @Test func unknownNodeAndBoardAreNamed() throws {
        let config = GPIOFixtures.configuration()
        let e = #expect(throws: GPIOError.self) { try RelayLayout(configuration: config, node: "pi-attic") }
        #expect(e?.description == "the relays of node \"pi-attic\" cannot be set up:\n  - no node \"pi-attic\" in the configuration (nodes: pi-main, pi-garage)")
        var noBoard = config
        noBoard.boards = [:]
        let e2 = #expect(throws: GPIOError.self) { try RelayLayout(configuration: noBoard, node: "pi-main") }
        #expect(e2?.description.contains("uses board \"relay-8ch\", which has no profile") == true)
    }

    @Test func everyProblemIsListed() throws {
        var config = GPIOFixtures.configuration()
        config.devices.append(Device(id: "fan", room: "bedroom", kind: .fan, endpoint: .relay(RelayRef(node: "pi-main", channel: 9))))
        let e = #expect(throws: GPIOError.self) { try RelayLayout(configuration: config, node: "pi-main") }
        #expect(e?.description.contains("device \"fan\" uses channel 9, but board \"relay-8ch\" has channels 1, 2, 3, 4, 5, 6, 7, 8") == true)

        let channels = [
            RelayLayout.Channel(device: "a", channel: 1, line: 5, activeLow: true, powerOn: .on, pulse: .seconds(1), minInterval: .seconds(2), interlock: "g"),
            RelayLayout.Channel(device: "b", channel: 1, line: 6, activeLow: true, powerOn: .on, maxOn: .seconds(1), minInterval: .seconds(5), interlock: "g"),
        ]
        let e2 = #expect(throws: GPIOError.self) { try RelayLayout(node: "n", chip: "gpiochip0", channels: channels) }
        guard case .invalidLayout(_, let problems)? = e2 else { Issue.record("expected invalidLayout"); return }
        #expect(problems == [
            "device \"a\": pulse 1s is shorter than min_interval 2s, so the pulse could not end on time",
            "device \"b\" and device \"a\" are both on channel 1",
            "device \"b\": max_on 1s is shorter than min_interval 5s, so the watchdog could not switch it off on time",
            "interlock \"g\": \"a\" and \"b\" are all power_on: on, but at most one member may be on",
        ])
    }
}

@Suite struct BootConfigTests {
    @Test func holdsEveryLineAtItsOffLevelWithAComment() throws {
        let layout = try RelayLayout(configuration: GPIOFixtures.configuration(), node: "pi-main")
        let lines = BootConfig.lines(for: layout)
        #expect(lines.filter { $0.hasPrefix("gpio=") } == [
            "gpio=5=op,dh", "gpio=6=op,dh", "gpio=13=op,dh", "gpio=16=op,dh", "gpio=19=op,dh", "gpio=20=op,dh", "gpio=21=op,dh", "gpio=26=op,dh",
        ])
        let i = try #require(lines.firstIndex(of: "gpio=13=op,dh"))
        #expect(lines[i - 1] == "# channel 3: garage-door (room garage), active-low: off = high")
        #expect(lines.contains("# channel 7: no device (unused channel), active-low: off = high"))
        #expect(!lines.contains { $0.contains("WARNING") })
    }

    @Test func inputsGetTheirPull() throws {
        let layout = try RelayLayout(configuration: GPIOFixtures.configuration(), node: "pi-main")
        let inputs = [
            Device(id: "button", room: "hall", kind: .button, endpoint: .input(GPIOInput(node: "pi-main", line: 17))),
            Device(id: "pir", room: "hall", kind: .motion, endpoint: .input(GPIOInput(node: "pi-main", line: 4, activeLow: false, bias: .pullDown))),
        ]
        let lines = BootConfig.lines(for: layout, inputs: inputs)
        #expect(Array(lines.suffix(4)) == ["# input line 4: pir (motion, room hall), pull-down", "gpio=4=ip,pd",
                                           "# input line 17: button (button, room hall), pull-up", "gpio=17=ip,pu"])
        #expect(lines[0].hasSuffix("and pull its input lines."))
    }

    @Test func activeHighBoardsAreDrivenLowAndExpandersWarned() throws {
        let layout = try RelayLayout(node: "n", board: "hat", chip: "gpiochip2", channels: [
            RelayLayout.Channel(device: "lamp", room: "hall", channel: 1, line: 4, activeLow: false),
        ])
        let lines = BootConfig.lines(for: layout)
        #expect(lines.contains("gpio=4=op,dl"))
        #expect(lines.contains("# channel 1: lamp (room hall), active-high: off = low"))
        #expect(lines.contains { $0.hasPrefix("# WARNING: gpio= only sets the SoC's own lines") })
    }
}

@Suite struct RelayTableTests {
    @Test func listsHolderAndLogicalAndPhysicalValues() async throws {
        let rig = try Rig(persisted: ["bedroom-light": .on])
        rig.chip.hold(line: 21, consumer: "gpio-fan")
        let rows = RelayTable.rows(layout: rig.layout, chip: rig.chip)
        let light = try #require(rows.first { $0.device == "bedroom-light" })
        #expect(light.holder == "housectl")
        #expect(light.logical == true)
        #expect(light.physical == false)
        let pump = try #require(rows.first { $0.device == "pump" })
        #expect(pump.logical == true)
        let text = RelayTable.render(rows, chip: rig.chip)
        #expect(text.contains("CH  LINE  DEVICE"))
        #expect(text.split(separator: "\n").contains { $0.hasPrefix("1   5     bedroom-light  low     housectl  ON       low") })
    }
}
