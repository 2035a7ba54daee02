import HouseCore
import HouseGPIO

/// The checks run inside the VM against a gpio-sim chip whose lines carry a board profile's
/// channels: LibgpiodChip and RelayBank on the kernel's real GPIO character device.
struct VMChecks {
    let chipName: String
    let board: BoardProfile
    let sim: GPIOSimLines
    let runner: VMTestRunner

    /// Dead time of the interlock group in the layout the checks use.
    static let deadTime: Duration = .milliseconds(500)
    static let pulse: Duration = .seconds(1)

    /// Channel 1 and 2 form the interlock group "shutter"; channel 3 is a pulse relay.
    func layout(upPowerOn: PowerOnPolicy = .off) throws(GPIOError) -> RelayLayout {
        func line(_ channel: Int) throws(GPIOError) -> Int {
            guard let line = board.channels[channel] else {
                throw .invalidLayout(node: "vm", problems: ["board \(board.id) has no channel \(channel)"])
            }
            return line
        }
        return try RelayLayout(node: "vm", board: board.id, chip: chipName, channels: [
            .init(device: "shutter-up", channel: 1, line: try line(1), activeLow: board.activeLow, powerOn: upPowerOn, interlock: "shutter"),
            .init(device: "shutter-down", channel: 2, line: try line(2), activeLow: board.activeLow, interlock: "shutter"),
            .init(device: "garage-door", channel: 3, line: try line(3), activeLow: board.activeLow, pulse: Self.pulse),
        ], defaultDeadTime: Self.deadTime)
    }

    /// The physical level that means "relay energised" / "relay off" on this board.
    var onLevel: Bool { !board.activeLow }
    var offLevel: Bool { board.activeLow }

    /// Expects each line at its physical level, read from gpio-sim while the line is held.
    func expectLevels(_ expected: [Int: Bool], _ moment: String) {
        for (line, want) in expected.sorted(by: { $0.key < $1.key }) {
            switch sim.level(line) {
            case .success(let got):
                runner.expect(got == want, "line \(line) is \(got ? "high" : "low") \(moment), expected \(want ? "high" : "low")")
            case .failure(let failure):
                runner.expect(false, "\(moment): \(failure)")
            }
        }
    }

    /// Expects that nobody holds the lines (checked through a fresh handle on the chip).
    func expectFree(_ lines: [Int], _ moment: String) throws {
        let probe = try LibgpiodChip(opening: chipName)
        for line in lines {
            let info = try probe.info(line: line)
            runner.expect(info.consumer == nil, "line \(line) is still held by \"\(info.consumer ?? "")\" \(moment)")
        }
    }

    /// Advances the clock to `target`, letting the bank act at every timer on the way; what the
    /// relays did is appended to `events`.
    func advance(_ clock: VMClock, by duration: Duration, firing bank: inout RelayBank, events: inout [RelayEvent]) {
        let target = clock.now.advanced(by: duration)
        while let next = bank.nextDeadline, next <= target {
            clock.advance(to: next)
            bank.fireDueTimers(at: clock.now, events: &events)
        }
        clock.advance(to: target)
        bank.fireDueTimers(at: clock.now, events: &events)
    }

    func makeClock() -> VMClock { VMClock(now: WallInstant(sinceEpoch: .seconds(1_800_000_000))) }

    // MARK: Checks

    func runAll() async {
        await runner.check("chip has the board's line names") { try lineNames() }
        await runner.check("request with active-low and initial value: physical level at once") { try initialLevels() }
        await runner.check("relay bank power-on levels") { try await bankPowerOn() }
        await runner.check("busy line names its holder; earlier lines released") { try busyLine() }
        await runner.check("busy line held by another process (gpioset) names it") { try await busyLineHeldByGpioset() }
        await runner.check("interlock: other member off, dead time, then on") { try await interlock() }
        await runner.check("pulse: on, then off after the pulse") { try await pulseEdges() }
        await runner.check("shutdown switches off and releases the lines") { try await shutdownReleases() }
        await runner.check("input: edges with the kernel's timestamps, logical with active-low") { try inputEdges() }
        await runner.check("input bank: a bouncing press is one single press, then a double press") { try await inputPresses() }
    }

    /// gpio-sim names the lines after the board's GPIOs, as the Raspberry Pi's chip does.
    func lineNames() throws {
        let chip = try LibgpiodChip(opening: chipName)
        for line in board.channels.values.sorted() {
            let info = try chip.info(line: line)
            runner.expect(info.name == "GPIO\(line)", "line \(line) is named \(info.name ?? "nil"), expected GPIO\(line)")
        }
    }

    /// Every combination of active-low and initial value, on the board's lines, read while held.
    func initialLevels() throws {
        let lines = board.channels.keys.sorted().compactMap { board.channels[$0] }
        let cases: [(activeLow: Bool, initial: Bool)] = [(true, true), (true, false), (false, true), (false, false)]
        for (activeLow, initial) in cases {
            let chip = try LibgpiodChip(opening: chipName)
            for line in lines {
                try chip.requestOutput(line: line, consumer: "housectl", activeLow: activeLow, initialValue: initial)
            }
            let physical = initial != activeLow
            let moment = "right after the request (active-low \(activeLow), initial \(initial))"
            expectLevels(Dictionary(uniqueKeysWithValues: lines.map { ($0, physical) }), moment)
            for line in lines {
                let info = try chip.info(line: line)
                runner.expect(info.consumer == "housectl", "line \(line) consumer is \(info.consumer ?? "nil") \(moment)")
                runner.expect(info.isOutput, "line \(line) is not an output \(moment)")
                runner.expect(info.activeLow == activeLow, "line \(line) reports active-low \(info.activeLow) \(moment)")
                runner.expect(info.logicalValue == initial, "line \(line) reads logical \(String(describing: info.logicalValue)) \(moment)")
                chip.release(line: line)
            }
            try expectFree(lines, "after release (active-low \(activeLow), initial \(initial))")
        }
    }

    /// A `power_on: on` member of an interlock group goes on after the dead time; the rest stay off.
    func bankPowerOn() async throws {
        let clock = makeClock()
        let layout = try layout(upPowerOn: .on)
        var bank = try RelayBank(layout: layout, chip: try LibgpiodChip(opening: chipName), at: clock.now)
        var events: [RelayEvent] = []
        let up = layout.channel(device: "shutter-up")!.line, down = layout.channel(device: "shutter-down")!.line
        let door = layout.channel(device: "garage-door")!.line
        expectLevels([up: offLevel, down: offLevel, door: offLevel], "right after power-on")
        advance(clock, by: Self.deadTime, firing: &bank, events: &events)
        expectLevels([up: onLevel, down: offLevel, door: offLevel], "after the dead time")
        bank.shutdown(at: clock.now, events: &events)
    }

    /// Another program holds channel 3's line: the bank refuses with the holder's name and lets go
    /// of the lines it had requested before.
    func busyLine() throws {
        let layout = try layout()
        let door = layout.channel(device: "garage-door")!.line
        let other = try LibgpiodChip(opening: chipName)
        try other.requestOutput(line: door, consumer: "other-program", activeLow: false, initialValue: true)
        do {
            _ = try RelayBank(layout: layout, chip: try LibgpiodChip(opening: chipName), at: makeClock().now)
            runner.expect(false, "the bank requested line \(door), which \"other-program\" holds")
        } catch {
            let want = GPIOError.lineBusy(call: "gpiod_line_request_output_flags", chip: chipName, line: door, holder: "other-program")
            runner.expect(error == want, "error is \(error), expected \(want)")
            runner.expect(error.description.contains("held by \"other-program\""), "message does not name the holder: \(error)")
        }
        expectLevels([door: true], "while \"other-program\" holds it high")
        try expectFree(layout.channels.filter { $0.line != door }.map(\.line), "after the refused request")
        other.release(line: door)
    }

    /// Switching one member on switches the other off at once and waits the dead time: the two lines
    /// are never energised together.
    func interlock() async throws {
        let clock = makeClock()
        let layout = try layout()
        var bank = try RelayBank(layout: layout, chip: try LibgpiodChip(opening: chipName), at: clock.now)
        var events: [RelayEvent] = []
        let up = layout.channel(device: "shutter-up")!.line, down = layout.channel(device: "shutter-down")!.line
        advance(clock, by: .seconds(5), firing: &bank, events: &events)
        let first = bank.set("shutter-up", to: .on, at: clock.now, events: &events)
        runner.expect(first == .switched(.on), "shutter-up on: \(first)")
        expectLevels([up: onLevel, down: offLevel], "after shutter-up on")
        advance(clock, by: .seconds(3), firing: &bank, events: &events)
        let second = bank.set("shutter-down", to: .on, at: clock.now, events: &events)
        let want = RelayResult.scheduled(.on, after: Self.deadTime, because: .deadTime(group: "shutter", Self.deadTime))
        runner.expect(second == want, "shutter-down on: \(second), expected \(want)")
        expectLevels([up: offLevel, down: offLevel], "right after asking shutter-down on")
        advance(clock, by: Self.deadTime - .milliseconds(1), firing: &bank, events: &events)
        expectLevels([up: offLevel, down: offLevel], "1 ms before the dead time ends")
        advance(clock, by: .milliseconds(1), firing: &bank, events: &events)
        expectLevels([up: offLevel, down: onLevel], "when the dead time ends")
        bank.shutdown(at: clock.now, events: &events)
    }

    /// A pulse relay goes on and goes off exactly when the pulse ends.
    func pulseEdges() async throws {
        let clock = makeClock()
        let layout = try layout()
        var bank = try RelayBank(layout: layout, chip: try LibgpiodChip(opening: chipName), at: clock.now)
        var events: [RelayEvent] = []
        let door = layout.channel(device: "garage-door")!.line
        let r = bank.set("garage-door", to: .on, at: clock.now, events: &events)
        runner.expect(r == .switched(.on), "garage-door on: \(r)")
        expectLevels([door: onLevel], "at the start of the pulse")
        advance(clock, by: Self.pulse - .milliseconds(1), firing: &bank, events: &events)
        expectLevels([door: onLevel], "1 ms before the pulse ends")
        advance(clock, by: .milliseconds(1), firing: &bank, events: &events)
        expectLevels([door: offLevel], "when the pulse ends")
        bank.shutdown(at: clock.now, events: &events)
    }

    /// Shutdown drives relays with shutdown `off` off, then releases every line.
    func shutdownReleases() async throws {
        let clock = makeClock()
        let layout = try layout()
        var bank = try RelayBank(layout: layout, chip: try LibgpiodChip(opening: chipName), at: clock.now)
        var events: [RelayEvent] = []
        let up = layout.channel(device: "shutter-up")!.line
        advance(clock, by: .seconds(5), firing: &bank, events: &events) // past the power-on dead time
        let r = bank.set("shutter-up", to: .on, at: clock.now, events: &events)
        runner.expect(r == .switched(.on), "shutter-up on: \(r)")
        expectLevels([up: onLevel], "before shutdown")
        let outcomes = bank.shutdown(at: clock.now, events: &events)
        let upOutcome = outcomes.first { $0.device == "shutter-up" }?.result
        runner.expect(upOutcome == .switched(.off), "shutter-up at shutdown: \(String(describing: upOutcome))")
        try expectFree(layout.channels.map(\.line), "after shutdown")
        // Free for the next program: another consumer gets every line.
        let next = try LibgpiodChip(opening: chipName)
        for c in layout.channels { try next.requestOutput(line: c.line, consumer: "next-program", activeLow: false, initialValue: false) }
        for c in layout.channels { next.release(line: c.line) }
    }
}
