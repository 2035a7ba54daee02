import Foundation
import Testing
import HouseGPIO
import HouseTesting

/// The libgpiod backend's error paths. This machine (and CI) has no GPIO chip; a later issue runs
/// the backend against a real kernel chip.
let noGPIOChipsHere = !((try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []).contains { $0.hasPrefix("gpiochip") }

@Suite(.enabled(if: noGPIOChipsHere, "this machine has GPIO chips"))
struct LibgpiodChipTests {
    @Test(arguments: ["gpiochip0", "/dev/gpiochip0", "pinctrl-bcm2711", "0"])
    func openingAnyChipFailsSayingThereAreNone(chip: String) throws {
        let error = #expect(throws: GPIOError.self) { _ = try LibgpiodChip(opening: chip) }
        #expect(error == .noChips(call: "gpiod_chip_open_lookup", chip: chip))
        let text = error?.description ?? ""
        #expect(text.contains("gpiod_chip_open_lookup(\"\(chip)\") failed"))
        #expect(text.contains("no GPIO chips found"))
        #expect(text.contains("--gpio sim"))
    }

    @Test func noChipsAreListed() {
        #expect(LibgpiodChip.availableChips().isEmpty)
    }

    @Test func backendFallsBackToTheSimulationWithAWarning() throws {
        let clock = GPIOFixtures.clock()
        let selection = try GPIOBackend.open(option: nil, configuredChip: "gpiochip0", clock: clock)
        #expect(selection.chip is SimulatedChip)
        #expect(selection.warning?.contains("relays are simulated") == true)
    }

    @Test func backendInsistsOnAnExplicitChip() {
        let clock = GPIOFixtures.clock()
        #expect(throws: GPIOError.noChips(call: "gpiod_chip_open_lookup", chip: "gpiochip4")) {
            _ = try GPIOBackend.open(option: "gpiochip4", configuredChip: "gpiochip0", clock: clock)
        }
        let sim = try? GPIOBackend.open(option: "sim", configuredChip: "gpiochip0", clock: clock)
        #expect(sim?.chip.name == "gpiochip0")
        #expect(sim?.warning == nil)
    }
}

@Suite struct GPIOErrorMessageTests {
    @Test func chipMissingListsTheChipsThatExist() {
        let e = GPIOError.chipNotFound(call: "gpiod_chip_open_lookup", chip: "gpiochip9", available: ["gpiochip0 (pinctrl-bcm2711, 58 lines)", "gpiochip1 (raspberrypi-exp-gpio, 8 lines)"])
        #expect(e.description == "gpiod_chip_open_lookup(\"gpiochip9\") failed: no GPIO chip named \"gpiochip9\". "
            + "Chips on this machine: gpiochip0 (pinctrl-bcm2711, 58 lines), gpiochip1 (raspberrypi-exp-gpio, 8 lines). "
            + "Set `chip:` on the node (or --gpio CHIP) to one of them: a name, /dev path, label or number.")
    }

    @Test func busyLineNamesTheConsumerHoldingIt() {
        let e = GPIOError.lineBusy(call: "gpiod_line_request_output_flags", chip: "gpiochip0", line: 17, holder: "gpio-fan")
        #expect(e.description.hasPrefix("gpiod_line_request_output_flags failed on gpiochip0 line 17: the line is busy, held by \"gpio-fan\"."))
        let anonymous = GPIOError.lineBusy(call: "gpiod_line_request_output_flags", chip: "gpiochip0", line: 17, holder: nil)
        #expect(anonymous.description.contains("held by another process (the kernel does not name it)"))
    }

    @Test func permissionDeniedPointsAtTheGPIOGroup() {
        let e = GPIOError.permissionDenied(call: "gpiod_line_request_output_flags", chip: "gpiochip0", line: 5)
        #expect(e.description.hasPrefix("gpiod_line_request_output_flags failed on gpiochip0 line 5: permission denied."))
        #expect(e.description.contains("gpio group (sudo usermod -aG gpio $USER"))
    }

    @Test func otherFailuresCarryErrnoAndMessage() {
        let e = GPIOError.callFailed(call: "gpiod_line_set_value", chip: "gpiochip0", line: 6, errno: 5, message: "Input/output error")
        #expect(e.description == "gpiod_line_set_value failed on gpiochip0 line 6: Input/output error (errno 5).")
        let missing = GPIOError.lineMissing(call: "gpiod_chip_get_line", chip: "gpiochip0", line: 60, lineCount: 58)
        #expect(missing.description.hasPrefix("gpiod_chip_get_line failed on gpiochip0 line 60: the chip has no such line (it has 58 lines, 0...57)."))
    }
}

@Suite struct SimulatedChipTests {
    @Test func activeLowInvertsThePhysicalLevelFromTheRequestOn() throws {
        let clock = GPIOFixtures.clock()
        let chip = SimulatedChip(clock: clock)
        try chip.requestOutput(line: 5, consumer: "housectl", activeLow: true, initialValue: false)
        try chip.requestOutput(line: 6, consumer: "housectl", activeLow: false, initialValue: false)
        #expect(chip.physicalLevel(line: 5) == true)
        #expect(chip.physicalLevel(line: 6) == false)
        clock.advance(by: .milliseconds(250))
        try chip.setValue(line: 5, to: true)
        let info = try chip.info(line: 5)
        #expect(info.consumer == "housectl")
        #expect(info.logicalValue == true)
        #expect(info.physicalValue == false)
        #expect(chip.edges.last == SimulatedChip.Edge(line: 5, kind: .set, logical: true, physical: false, at: .milliseconds(250)))
    }

    /// The daemon's simulated chip runs for months: it keeps its newest writes, not all of them.
    @Test func aChipWithARecordLimitKeepsItsNewestWrites() throws {
        let chip = SimulatedChip(recordLimit: 10, clock: GPIOFixtures.clock())
        try chip.requestOutput(line: 5, consumer: "housectl", activeLow: false, initialValue: false)
        for i in 1...25 { try chip.setValue(line: 5, to: i % 2 == 1) }
        #expect(chip.edges.count == 10)
        #expect(chip.edges.allSatisfy { $0.kind == .set }, "the request went first")
        #expect(chip.edges.last?.logical == true, "the 25th write, ON")
        #expect(chip.physicalLevel(line: 5) == true)
        let sim = try GPIOBackend.open(option: "sim", configuredChip: "gpiochip0", clock: GPIOFixtures.clock()).chip
        try sim.requestOutput(line: 6, consumer: "housectl", activeLow: false, initialValue: false)
        for i in 0..<(3 * GPIOBackend.simulatedRecordLimit) { try sim.setValue(line: 6, to: i % 2 == 0) }
        #expect((sim as? SimulatedChip)?.edges.count == GPIOBackend.simulatedRecordLimit, "the daemon's chip is bounded")
    }

    @Test func busyAndMissingLinesFailLikeTheKernel() throws {
        let chip = SimulatedChip(lineCount: 28, clock: GPIOFixtures.clock())
        chip.hold(line: 4, consumer: "w1-gpio")
        #expect(throws: GPIOError.lineBusy(call: "SimulatedChip.requestOutput", chip: "gpiochip0", line: 4, holder: "w1-gpio")) {
            try chip.requestOutput(line: 4, consumer: "housectl", activeLow: true, initialValue: false)
        }
        #expect(throws: GPIOError.lineMissing(call: "SimulatedChip.requestOutput", chip: "gpiochip0", line: 28, lineCount: 28)) {
            try chip.requestOutput(line: 28, consumer: "housectl", activeLow: true, initialValue: false)
        }
        #expect(throws: GPIOError.lineNotHeld(chip: "gpiochip0", line: 3)) { try chip.setValue(line: 3, to: true) }
        #expect(chip.edges.isEmpty)
    }

    @Test func releasedLineKeepsItsLevelAndIsFreeAgain() throws {
        let chip = SimulatedChip(clock: GPIOFixtures.clock())
        try chip.requestOutput(line: 7, consumer: "housectl", activeLow: true, initialValue: true)
        chip.release(line: 7)
        #expect(chip.physicalLevel(line: 7) == false)
        #expect(try chip.info(line: 7).consumer == nil)
        try chip.requestOutput(line: 7, consumer: "other", activeLow: false, initialValue: false)
        #expect(try chip.info(line: 7).consumer == "other")
    }
}
