import Testing
import PropertyBased
import HouseGPIO
import HouseTesting

/// Random sequences of commands, pulses, clock advances, restarts (with every power-on policy) and
/// shutdowns, checking the safety rules on every recorded edge of the simulated chip.
@Suite struct RelayBankPropertyTests {
    /// The relays under test: interlock groups of three and two, a max-on heater, a pulse button.
    static let devices: [DeviceID] = ["lamp", "up", "down", "stop", "heater", "door", "valve-a", "valve-b"]

    static func layout(powerOn: [Int], shutdown: [Int], minInterval: [Int], deadTime: Int) throws -> RelayLayout {
        let intervals: [Duration?] = [nil, .milliseconds(500), .seconds(1), .seconds(3)]
        let deadTimes: [Duration] = [.zero, .milliseconds(200), .seconds(1)]
        var channels: [RelayLayout.Channel] = []
        var groupHasOn: Set<String> = []
        for (i, id) in devices.enumerated() {
            let group: String? = switch id {
            case "up", "down", "stop": "motor"
            case "valve-a", "valve-b": "valves"
            default: nil
            }
            var policy = PowerOnPolicy.allCases[powerOn[i]]
            if policy == .on, let group {
                if groupHasOn.contains(group) { policy = .restore } else { groupHasOn.insert(group) }
            }
            var mi = intervals[minInterval[i]]
            if id == "door", let m = mi, m > .seconds(2) { mi = .seconds(1) }
            channels.append(RelayLayout.Channel(
                device: id, channel: i + 1, line: 10 + i, activeLow: i % 2 == 0, powerOn: policy,
                shutdown: ShutdownPolicy.allCases[shutdown[i]],
                pulse: id == "door" ? .seconds(2) : nil,
                maxOn: id == "heater" ? .seconds(5) : (id == "valve-b" ? .seconds(4) : nil),
                minInterval: mi, interlock: group))
        }
        return try RelayLayout(node: "prop", chip: "gpiochip0", channels: channels, defaultDeadTime: deadTimes[deadTime])
    }

    typealias Op = (kind: Int, device: Int, amount: Int)

    @Test func safetyRulesHoldOnEveryEdge() async throws {
        let ops = zip(Gen.int(in: 0...99), Gen.int(in: 0...7), Gen.int(in: 0...3000)).array(of: 1...60)
        let policies = zip(Gen.int(in: 0...2).array(of: 8), Gen.int(in: 0...1).array(of: 8))
        let timing = zip(Gen.int(in: 0...3).array(of: 8), Gen.int(in: 0...2))
        await propertyCheck(count: 2000, input: ops, policies, timing, Gen.bool) { ops, policies, timing, refuse in
            try Self.check(ops: ops, powerOn: policies.0, shutdown: policies.1, minInterval: timing.0, deadTime: timing.1, refuse: refuse)
        }
    }

    static func check(ops: [Op], powerOn: [Int], shutdown: [Int], minInterval: [Int], deadTime: Int, refuse: Bool) throws {
        let layout = try layout(powerOn: powerOn, shutdown: shutdown, minInterval: minInterval, deadTime: deadTime)
        let clock = GPIOFixtures.clock()
        let chip = SimulatedChip(clock: clock)
        let policy: ChatterPolicy = refuse ? .refuse : .coalesce
        var bank = try RelayBank(layout: layout, chip: chip, at: clock.now, chatterPolicy: policy)
        var events: [RelayEvent] = []
        var shutdownWrites: Set<Int> = []
        let pulses: [Duration?] = [nil, .milliseconds(500), .seconds(1), .seconds(2), .seconds(6)]

        for op in ops {
            let device = devices[op.device]
            switch op.kind {
            case 0..<45:
                let command: [RelayCommand] = [.on, .off, .toggle]
                let before = chip.edges.count
                let result = bank.perform(command[op.amount % 3], on: device, at: clock.now, events: &events)
                checkResult(result, device: device, layout: layout, newEdges: Array(chip.edges[before...]))
            case 45..<55:
                let before = chip.edges.count
                let result = bank.perform(.pulse(pulses[op.amount % pulses.count]), on: device, at: clock.now, events: &events)
                checkResult(result, device: device, layout: layout, newEdges: Array(chip.edges[before...]))
            case 55..<85:
                clock.advance(by: .milliseconds(op.amount), firing: &bank, events: &events)
            case 85..<93:
                // Restart: persist, shut down, power on again with the persisted state.
                let persisted = bank.states
                let before = chip.edges.count
                bank.shutdown(at: clock.now, events: &events)
                shutdownWrites.formUnion(before..<chip.edges.count)
                bank = try RelayBank(layout: layout, chip: chip, at: clock.now, persisted: persisted, chatterPolicy: policy)
                let delay = bank.powerOnDecisions.compactMap(\.scheduled).max() ?? .zero
                clock.advance(by: delay, firing: &bank, events: &events)
                for c in layout.channels {
                    var expected: DeviceState = switch c.powerOn {
                    case .off: .off
                    case .on: c.pulse == nil ? .on : .off
                    case .restore: c.pulse == nil ? persisted[c.device]! : .off
                    }
                    // An interlocked member configured `on` wins over a restored one.
                    if c.powerOn == .restore, let g = layout.group(of: c.device),
                       g.members.contains(where: { layout.channel(device: $0)?.powerOn == .on }) {
                        expected = .off
                    }
                    let decision = bank.powerOnDecisions.first { $0.device == c.device }
                    #expect(decision?.target == expected, "power-on \(c.powerOn) of \(c.device)")
                    // Restored relays have their state unless a watchdog already switched them off.
                    if c.maxOn == nil || c.maxOn! > delay {
                        #expect(bank.state(of: c.device) == expected, "after restart: \(c.device)")
                    }
                }
            default:
                clock.advance(by: .seconds(6), firing: &bank, events: &events)
            }
        }
        // The bank's view and the lines agree.
        for (device, state) in bank.states {
            let line = layout.channel(device: device)!.line
            #expect(try chip.info(line: line).logicalValue == state.isOn, "\(device) is \(state) in the bank")
        }
        let before = chip.edges.count
        bank.shutdown(at: clock.now, events: &events)
        shutdownWrites.formUnion(before..<chip.edges.count)
        verify(edges: chip.edges, layout: layout, shutdownWrites: shutdownWrites)
    }

    /// A command's result matches what happened on the lines: a switch is the last write of its
    /// line, anything else writes nothing to it.
    static func checkResult(_ result: RelayResult, device: DeviceID, layout: RelayLayout, newEdges: [SimulatedChip.Edge]) {
        let line = layout.channel(device: device)!.line
        let mine = newEdges.filter { $0.line == line }
        switch result {
        case .switched(let s):
            #expect(mine.map(\.logical) == [s.isOn], "\(device): \(result) but wrote \(mine)")
        case .refused(.unknownRelay):
            Issue.record("\(device) is configured")
        default:
            #expect(mine.isEmpty, "\(device): \(result) but wrote \(mine)")
        }
        // Only interlock partners may be switched (off) as a side effect.
        for e in newEdges where e.line != line {
            #expect(!e.logical, "a command on \(device) switched another relay on: \(e)")
        }
    }

    /// The rules, checked on the chip's record of writes.
    static func verify(edges: [SimulatedChip.Edge], layout: RelayLayout, shutdownWrites: Set<Int>) {
        let byLine = Dictionary(uniqueKeysWithValues: layout.channels.map { ($0.line, $0) })
        var on: [DeviceID: Bool] = [:]
        var lastWrite: [DeviceID: SimulatedChip.Edge] = [:]
        var onSince: [DeviceID: Duration] = [:]
        for (index, e) in edges.enumerated() {
            guard let c = byLine[e.line] else { Issue.record("write to unconfigured line \(e.line)"); continue }
            let d = c.device
            #expect(e.physical == (e.logical != c.activeLow), "active-low applied: \(e)")
            if let prev = lastWrite[d], e.kind == .set {
                #expect(prev.logical != e.logical, "idempotence: \(d) written \(e.logical) twice: \(prev) then \(e)")
                if let mi = c.minInterval, !shutdownWrites.contains(index) {
                    #expect(e.at - prev.at >= mi, "min interval \(mi) of \(d): \(prev) then \(e)")
                }
            }
            if e.logical, let group = layout.group(of: d) {
                for other in group.members where other != d {
                    #expect(on[other] != true, "interlock \(group.id): \(d) on while \(other) on at \(e.at)")
                    if let w = lastWrite[other] {
                        #expect(e.at - w.at >= group.deadTime, "dead time \(group.deadTime): \(other) \(w) then \(d) \(e)")
                    }
                }
            }
            let limit = [c.maxOn, c.pulse].compactMap { $0 }.min()
            if e.logical {
                if on[d] != true { onSince[d] = e.at }
            } else if let since = onSince[d], let limit {
                #expect(e.at - since <= limit, "\(d) on for \(e.at - since), limit \(limit)")
                onSince[d] = nil
            }
            on[d] = e.logical
            lastWrite[d] = e
        }
    }
}
