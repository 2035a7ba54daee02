import Testing
import HouseGPIO
import HouseTesting

@Suite struct PowerOnTests {
    @Test func offOnAndRestoreWithoutStateGiveTheirLevelInTheRequestItself() throws {
        let rig = try Rig()
        // No persisted state: restore falls back to off; pump is power_on: on.
        for device: DeviceID in ["bedroom-light", "heater", "garage-door", "shutter-up", "shutter-down"] {
            let edges = rig.edges(device)
            #expect(edges.count == 1)
            #expect(edges.first?.kind == .request)
            #expect(edges.first?.logical == false)
            #expect(edges.first?.physical == true, "active-low: off is a high line")
        }
        #expect(rig.edges("pump").map(\.kind) == [.request])
        #expect(rig.edges("pump").first?.logical == true)
        #expect(rig.edges("pump").first?.physical == false)
        let reasons = Dictionary(uniqueKeysWithValues: rig.bank.powerOnDecisions.map { ($0.device, $0.reason) })
        #expect(reasons["bedroom-light"] == .nothingToRestore)
        #expect(reasons["pump"] == .policyOn)
        #expect(reasons["garage-door"] == .policyOff)
    }

    @Test func restoreGivesBackThePersistedState() throws {
        let rig = try Rig(persisted: ["bedroom-light": .on, "heater": .off, "garage-door": .on])
        #expect(rig.state(of: "bedroom-light") == .on)
        #expect(rig.edges("bedroom-light").map(\.logical) == [true])
        #expect(rig.state(of: "heater") == .off)
        // A pulse relay never comes back on by itself (a garage door opening at boot).
        #expect(rig.state(of: "garage-door") == .off)
    }

    @Test func restoredInterlockMemberStartsOffAndGoesOnAfterTheDeadTime() throws {
        var rig = try Rig(persisted: ["shutter-up": .on])
        #expect(rig.edges("shutter-up").map(\.logical) == [false])
        let decision = rig.bank.powerOnDecisions.first { $0.device == "shutter-up" }
        #expect(decision?.initial == .off)
        #expect(decision?.target == .on)
        #expect(decision?.scheduled == .seconds(2), "the longer of dead time 500ms and min interval 2s")
        rig.advance(.milliseconds(1999))
        #expect(rig.state(of: "shutter-up") == .off)
        rig.advance(.milliseconds(1))
        #expect(rig.state(of: "shutter-up") == .on)
    }

    @Test func twoInterlockedMembersPersistedOnBothStartOff() throws {
        var rig = try Rig(persisted: ["shutter-up": .on, "shutter-down": .on])
        rig.advance(.seconds(10))
        #expect(rig.state(of: "shutter-up") == .off)
        #expect(rig.state(of: "shutter-down") == .off)
        let d = rig.bank.powerOnDecisions.first { $0.device == "shutter-down" }
        #expect(d?.reason == .interlockConflict(group: "shutter", members: ["shutter-up", "shutter-down"]))
        #expect(rig.chip.edges.filter { $0.kind == .set }.isEmpty)
    }

    @Test func aBusyLineFailsStartupNamingTheHolderAndReleasesTheLinesAlreadyTaken() throws {
        let clock = GPIOFixtures.clock()
        let chip = SimulatedChip(clock: clock)
        let layout = try RelayLayout(configuration: GPIOFixtures.configuration(), node: "pi-main")
        chip.hold(line: layout.channel(device: "garage-door")!.line, consumer: "gpio-fan")
        #expect(throws: GPIOError.lineBusy(call: "SimulatedChip.requestOutput", chip: "gpiochip0", line: 13, holder: "gpio-fan")) {
            _ = try RelayBank(layout: layout, chip: chip, at: clock.now)
        }
        #expect(try chip.info(line: layout.channel(device: "bedroom-light")!.line).consumer == nil)
        #expect(try chip.info(line: layout.channel(device: "heater")!.line).consumer == nil)
    }

    @Test func aMissingLineFailsStartupWithTheLineCount() throws {
        let clock = GPIOFixtures.clock()
        let chip = SimulatedChip(lineCount: 20, clock: clock)
        let layout = try RelayLayout(configuration: GPIOFixtures.configuration(), node: "pi-main")
        #expect(throws: GPIOError.lineMissing(call: "SimulatedChip.requestOutput", chip: "gpiochip0", line: 20, lineCount: 20)) {
            _ = try RelayBank(layout: layout, chip: chip, at: clock.now)
        }
    }
}

@Suite struct CommandTests {
    @Test func settingTheSameStateMakesNoEdge() throws {
        var rig = try Rig()
        #expect(rig.set("bedroom-light", to: .on) == .switched(.on))
        #expect(rig.set("bedroom-light", to: .on) == .unchanged(.on))
        #expect(rig.set("pump", to: .on) == .unchanged(.on))
        #expect(rig.edges("bedroom-light").map(\.logical) == [false, true])
        #expect(rig.edges("bedroom-light").last?.physical == false, "active-low: on drives the line low")
        #expect(rig.perform(.toggle, on: "bedroom-light") == .switched(.off))
    }

    @Test func unknownRelayIsRefusedByName() throws {
        var rig = try Rig()
        let r = rig.set("hall-light", to: .on)
        #expect(r == .refused(.unknownRelay("hall-light")))
        #expect(r.description == "refused: no relay \"hall-light\" on this node")
    }

    @Test func interlockSwitchesTheOtherOffThenWaitsTheDeadTime() throws {
        var rig = try Rig()
        rig.advance(.seconds(5))
        #expect(rig.set("shutter-up", to: .on) == .switched(.on))
        rig.advance(.seconds(3))
        let r = rig.set("shutter-down", to: .on)
        #expect(r == .scheduled(.on, after: .milliseconds(500), because: .deadTime(group: "shutter", .milliseconds(500))))
        #expect(rig.state(of: "shutter-up") == .off, "the other member goes off at once")
        #expect(rig.state(of: "shutter-down") == .off, "and this one waits")
        rig.advance(.milliseconds(499))
        #expect(rig.state(of: "shutter-down") == .off)
        rig.advance(.milliseconds(1))
        #expect(rig.state(of: "shutter-down") == .on)
        let upOff = rig.edges("shutter-up").last!
        let downOn = rig.edges("shutter-down").last!
        #expect(upOff.at + .milliseconds(500) == downOn.at)
    }

    @Test func interlockWaitsForTheOtherMembersMinimumIntervalToo() throws {
        var rig = try Rig()
        rig.advance(.seconds(5))
        _ = rig.set("shutter-up", to: .on)
        rig.advance(.seconds(1))
        let r = rig.set("shutter-down", to: .on)
        #expect(r == .scheduled(.on, after: .milliseconds(1500), because: .interlockMember("shutter-up", group: "shutter")))
        #expect(rig.state(of: "shutter-up") == .on)
        rig.advance(.seconds(1))
        #expect(rig.state(of: "shutter-up") == .off)
        #expect(rig.state(of: "shutter-down") == .off)
        rig.advance(.milliseconds(500))
        #expect(rig.state(of: "shutter-down") == .on)
    }

    @Test func askingTheOtherMemberOnCancelsAPendingOn() throws {
        var rig = try Rig()
        rig.advance(.seconds(5))
        _ = rig.set("shutter-up", to: .on)
        rig.advance(.seconds(3))
        _ = rig.set("shutter-down", to: .on) // up goes off, down waits
        let r = rig.set("shutter-up", to: .on)
        #expect(r == .scheduled(.on, after: .seconds(2), because: .minInterval(.seconds(2))))
        rig.advance(.seconds(5))
        #expect(rig.state(of: "shutter-up") == .on)
        #expect(rig.state(of: "shutter-down") == .off)
        #expect(rig.edges("shutter-down").count == 1, "the cancelled switch made no edge")
    }

    @Test func pulseGoesOnThenOffAfterItsDuration() throws {
        var rig = try Rig()
        #expect(rig.set("garage-door", to: .on) == .switched(.on))
        rig.advance(.milliseconds(999))
        #expect(rig.state(of: "garage-door") == .on)
        rig.advance(.milliseconds(1))
        #expect(rig.state(of: "garage-door") == .off)
        let e = rig.edges("garage-door").filter { $0.kind == .set }
        #expect(e.map(\.logical) == [true, false])
        #expect(e[0].at + .seconds(1) == e[1].at)
        #expect(rig.perform(.pulse(.milliseconds(300)), on: "bedroom-light") == .switched(.on))
        rig.advance(.milliseconds(300))
        #expect(rig.state(of: "bedroom-light") == .off)
    }

    /// A pulse for a relay that is on (a cover's winding moving on to a new position) keeps it on
    /// and sets its end anew, never past the max-on counted from when it went on; a relay with a
    /// pulse of its own (a door button) is never held longer.
    @Test func aPulseForARelayThatIsOnSetsItsEndAnewWithinTheMaxOn() throws {
        var rig = try Rig()
        // The heater: min interval 60 s (from power-on too), max-on 30 min.
        rig.advance(.seconds(60))
        #expect(rig.perform(.pulse(.seconds(600)), on: "heater") == .switched(.on))
        rig.advance(.seconds(100))
        #expect(rig.perform(.pulse(.seconds(120)), on: "heater") == .retimed(offAfter: .seconds(120)))
        rig.advance(.milliseconds(119_999))
        #expect(rig.state(of: "heater") == .on)
        rig.advance(.milliseconds(1))
        #expect(rig.state(of: "heater") == .off, "off 120 s after the second pulse, not 600 s after the first")
        #expect(rig.edges("heater").filter { $0.kind == .set }.map(\.logical) == [true, false], "no edge in between")
        // A pulse asked 1000 s into a run ends at the 30th minute of it, not 1200 s later.
        rig.advance(.seconds(60))
        _ = rig.perform(.pulse(.seconds(1200)), on: "heater")
        rig.advance(.seconds(1000))
        #expect(rig.perform(.pulse(.seconds(1200)), on: "heater") == .retimed(offAfter: .seconds(800)))
        // The door button (pulse 1 s) pressed again while pressed: unchanged, it ends on time.
        _ = rig.set("garage-door", to: .on)
        rig.advance(.milliseconds(500))
        #expect(rig.perform(.pulse(nil), on: "garage-door") == .unchanged(.on))
        rig.advance(.milliseconds(500))
        #expect(rig.state(of: "garage-door") == .off)
    }

    /// A restart in the same boot in the middle of a 1 s pulse (0.4 s into it): the button stays
    /// pressed for the 0.6 s left, with no edge at the restart; one past its end is not pressed
    /// again; after a new boot (no `restart`) it never comes on by itself.
    @Test func aPulseCutShortByARestartGoesOnForWhatWasLeft() throws {
        let clock = GPIOFixtures.clock()
        let chip = SimulatedChip(clock: clock)
        let layout = try RelayLayout(configuration: GPIOFixtures.configuration(), node: "pi-main")
        var bank = try RelayBank(layout: layout, chip: chip, at: clock.now, persisted: ["garage-door": .on],
                                 restart: RelayRestart(onFor: ["garage-door": .milliseconds(400)]))
        var events: [RelayEvent] = []
        let line = layout.channel(device: "garage-door")!.line
        #expect(bank.state(of: "garage-door") == .on)
        #expect(bank.powerOnDecisions.first { $0.device == "garage-door" }?.reason == .keptAcrossRestart)
        #expect(chip.edges.filter { $0.line == line && $0.kind == .set }.isEmpty, "requested on, no edge")
        clock.advance(by: .milliseconds(599), firing: &bank, events: &events)
        #expect(bank.state(of: "garage-door") == .on)
        clock.advance(by: .milliseconds(1), firing: &bank, events: &events)
        #expect(bank.state(of: "garage-door") == .off)
        bank.shutdown(at: clock.now, events: &events)

        let late = SimulatedChip(clock: clock)
        var over = try RelayBank(layout: layout, chip: late, at: clock.now, persisted: ["garage-door": .on],
                                 restart: RelayRestart(onFor: ["garage-door": .seconds(3)]))
        #expect(over.state(of: "garage-door") == .off, "a pulse already over is not pressed again")
        over.shutdown(at: clock.now, events: &events)
    }

    @Test func pulseRefusalsSayWhy() throws {
        var rig = try Rig()
        #expect(rig.perform(.pulse(nil), on: "bedroom-light")
            == .refused(.invalidPulse("\"bedroom-light\" has no pulse configured; give the pulse a duration")))
        let tooShort = rig.perform(.pulse(.seconds(1)), on: "heater")
        #expect(tooShort.description == "refused: a pulse of 1s is shorter than the minimum interval 1m of \"heater\"")
        let tooLong = rig.perform(.pulse(.seconds(3600)), on: "heater")
        #expect(tooLong.description == "refused: a pulse of 1h is longer than the max-on 30m of \"heater\"")
    }

    /// Each call appends the events it caused to the caller's `events`: an edge is known (with
    /// the relay's state at that moment) when the command that made it returns.
    @Test func eachCallAppendsItsEventsBeforeItReturns() throws {
        var rig = try Rig()
        rig.advance(.seconds(60))
        #expect(rig.events.isEmpty)
        #expect(rig.set("heater", to: .on) == .switched(.on))
        #expect(rig.events == [.switched(device: "heater", to: .on, cause: .command)])
        #expect(rig.state(of: "heater") == .on)
        rig.advance(.seconds(1800))
        #expect(rig.events.contains(.watchdog(device: "heater", after: .seconds(1800))))
        #expect(rig.events.contains(.switched(device: "heater", to: .off, cause: .watchdog)))
        #expect(rig.state(of: "heater") == .off)
    }

    @Test func maxOnWatchdogSwitchesOffAndSaysSo() throws {
        var rig = try Rig()
        rig.advance(.seconds(60))
        #expect(rig.set("heater", to: .on) == .switched(.on))
        rig.advance(.seconds(1799))
        #expect(rig.state(of: "heater") == .on)
        #expect(rig.set("heater", to: .on) == .unchanged(.on), "asking again does not extend the limit")
        rig.advance(.seconds(1))
        #expect(rig.state(of: "heater") == .off)
        let e = rig.events.first { if case .watchdog = $0 { true } else { false } }
        #expect(e == .watchdog(device: "heater", after: .seconds(1800)))
        #expect(e?.description == "heater switched OFF by the max-on watchdog after 30m on")
    }

    @Test func minIntervalCoalescesCommandsIntoOneLateSwitch() throws {
        var rig = try Rig()
        rig.advance(.seconds(10))
        #expect(rig.set("pump", to: .off) == .switched(.off))
        rig.advance(.seconds(4))
        #expect(rig.set("pump", to: .on) == .scheduled(.on, after: .seconds(6), because: .minInterval(.seconds(10))))
        #expect(rig.set("pump", to: .on) == .coalesced(.on, after: .seconds(6)))
        rig.advance(.seconds(1))
        #expect(rig.set("pump", to: .off) == .unchanged(.off), "back to the state it has: the pending switch is dropped")
        #expect(rig.set("pump", to: .on) == .scheduled(.on, after: .seconds(5), because: .minInterval(.seconds(10))))
        rig.advance(.seconds(5))
        #expect(rig.state(of: "pump") == .on)
        let e = rig.edges("pump").filter { $0.kind == .set }
        #expect(e.map(\.logical) == [false, true])
        #expect(e[1].at - e[0].at == .seconds(10))
    }

    @Test func minIntervalRefusesWithTheTimeLeftUnderTheRefusePolicy() throws {
        var rig = try Rig(chatter: .refuse)
        rig.advance(.seconds(10))
        _ = rig.set("pump", to: .off)
        rig.advance(.seconds(4))
        let r = rig.set("pump", to: .on)
        #expect(r == .refused(.tooSoon(remaining: .seconds(6), minInterval: .seconds(10))))
        #expect(r.description == "refused: switched less than 10s ago; try again in 6s")
        #expect(rig.state(of: "pump") == .off)
    }

    @Test func shutdownAppliesEachPolicyAndReleasesTheLines() throws {
        var rig = try Rig()
        rig.advance(.seconds(60))
        for d: DeviceID in ["bedroom-light", "heater", "shutter-up"] { _ = rig.set(d, to: .on) }
        let outcomes = rig.shutdown()
        let byDevice = Dictionary(uniqueKeysWithValues: outcomes.map { ($0.device, $0.result) })
        #expect(byDevice["bedroom-light"] == .unchanged(.on), "shutdown: leave")
        #expect(byDevice["shutter-up"] == .unchanged(.on), "shutdown: leave")
        #expect(byDevice["heater"] == .switched(.off), "a max-on relay is always switched off")
        #expect(byDevice["pump"] == .switched(.off), "shutdown: off, even within its min interval")
        #expect(rig.chip.physicalLevel(line: rig.line("bedroom-light")) == false, "released, still on (low)")
        #expect(try rig.chip.info(line: rig.line("heater")).consumer == nil)
        #expect(rig.set("heater", to: .on) == .refused(.shutDown))
    }
}

/// The bank has no loop of its own: its owner fires the timers at `nextDeadline`, with the time
/// of its clock.
@Suite struct TimerTests {
    @Test func timersFireAtTheNextDeadlineOffTheCallersClock() throws {
        var rig = try Rig()
        let start = rig.clock.now
        #expect(rig.set("garage-door", to: .on) == .switched(.on))
        #expect(rig.bank.nextDeadline == start.advanced(by: .seconds(1)))
        rig.clock.advance(by: .seconds(1))
        rig.bank.fireDueTimers(at: rig.clock.now, events: &rig.events)
        #expect(rig.events.contains(.switched(device: "garage-door", to: .off, cause: .pulseEnd)))
        rig.shutdown()
        #expect(rig.bank.nextDeadline == nil)
        #expect(rig.edges("garage-door").filter { $0.kind == .set }.map(\.at) == [.zero, .seconds(1)])
    }

    @Test func aCommandSetsANewDeadlineAndEachTimerSetsTheNext() throws {
        let clock = GPIOFixtures.clock()
        let chip = SimulatedChip(clock: clock)
        var bank = try RelayBank(configuration: GPIOFixtures.configuration(), node: "pi-main", chip: chip, at: clock.now)
        var events: [RelayEvent] = []
        let start = clock.now
        // Right after power-on nothing is due: a command sets the first deadline.
        #expect(bank.nextDeadline == nil)
        // Within a minute of power-on: the heater's min interval defers the switch.
        #expect(bank.set("heater", to: .on, at: clock.now, events: &events) == .scheduled(.on, after: .seconds(60), because: .minInterval(.seconds(60))))
        #expect(bank.nextDeadline == start.advanced(by: .seconds(60)))
        clock.advance(by: .seconds(60))
        bank.fireDueTimers(at: clock.now, events: &events)
        #expect(events.contains(.switched(device: "heater", to: .on, cause: .command)))
        #expect(bank.nextDeadline == start.advanced(by: .seconds(60 + 1800)))
        clock.advance(by: .seconds(1800))
        bank.fireDueTimers(at: clock.now, events: &events)
        let e = events.first { if case .watchdog = $0 { true } else { false } }
        #expect(e == .watchdog(device: "heater", after: .seconds(1800)))
        #expect(bank.state(of: "heater") == .off)
    }
}
