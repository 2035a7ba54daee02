import Foundation
import HouseCore
import HouseGPIO

extension VMChecks {
    /// The line the input checks use: the first the board leaves for inputs.
    var inputLine: Int? { board.inputLines?.first }

    /// gpio-sim's pull of a line, as a switch wired to it would set it: writing `pull-down` or
    /// `pull-up` to `sim_gpioN/pull` makes the kernel see an edge on a line requested as input.
    func pull(_ line: Int, high: Bool) throws {
        try (high ? "pull-up" : "pull-down").write(toFile: "\(sim.directory)/sim_gpio\(line)/pull", atomically: false, encoding: .utf8)
    }

    /// Requested as an active-low input with a pull-up: the line reads inactive; pulled down it is
    /// active, and the edges come with CLOCK_MONOTONIC timestamps in order.
    func inputEdges() throws {
        guard let line = inputLine else {
            runner.expect(false, "board \(board.id) lists no input_lines")
            return
        }
        let chip = try LibgpiodChip(opening: chipName)
        try chip.requestInput(line: line, consumer: "housectl", activeLow: true, bias: .pullUp)
        defer { chip.release(line: line) }
        runner.expect(try chip.inputValue(line: line) == false, "an active-low input with its pull-up reads active")
        let before = chip.edgeClockNow
        try pull(line, high: false)
        let pressed = try chip.waitForEdges(timeout: .seconds(2))
        runner.expect(pressed.map(\.active) == [true], "pulling the line low gave \(pressed), expected one edge to active")
        runner.expect(try chip.inputValue(line: line) == true, "the line reads inactive while pulled low")
        try pull(line, high: true)
        let released = try chip.waitForEdges(timeout: .seconds(2))
        runner.expect(released.map(\.active) == [false], "pulling the line high gave \(released), expected one edge to inactive")
        let after = chip.edgeClockNow
        if let p = pressed.first, let r = released.first {
            runner.expect(before <= p.at && p.at <= r.at && r.at <= after,
                          "timestamps not on the monotonic clock in order: \(before) \(p.at) \(r.at) \(after)")
        }
        runner.expect(try chip.waitForEdges(timeout: .milliseconds(100)).isEmpty, "an edge came with nothing moving the line")
    }

    /// The input bank on the kernel's chip: a press that bounces (three quick edges before it
    /// settles) is one single press, its chatter counted; two presses close together are one
    /// double press. Waits are on the events, bounded.
    func inputPresses() async throws {
        guard let line = inputLine else {
            runner.expect(false, "board \(board.id) lists no input_lines")
            return
        }
        let configuration = HouseConfiguration(
            house: HouseInfo(name: "VM", timeZone: HouseZone(identifier: "UTC")!, latitude: 0, longitude: 0),
            nodes: [Node(id: "vm", board: board.id)], boards: [board.id: board],
            rooms: [Room(id: "hall", name: "Hall")],
            devices: [Device(id: "button", room: "hall", kind: .button, endpoint: .input(GPIOInput(node: "vm", line: line)))])
        let bank = try InputBank(configuration: configuration, node: "vm", chip: try LibgpiodChip(opening: chipName))
        let events = EventBox()
        bank.start({ events.add($0) }, onError: { events.fail($0) })
        defer { bank.stop() }

        // A bouncing press: low, high, low within a few milliseconds, held, released.
        try pull(line, high: false)
        try pull(line, high: true)
        try pull(line, high: false)
        usleep(150_000)  // the press itself: how long the finger stays on the button
        try pull(line, high: true)
        // (The kernel may merge edges that come microseconds apart: the chatter counted may be
        // fewer than the two extra edges written; what counts is one single press.)
        let first = events.wait(until: { $0.isPress }, timeout: .seconds(3))
        let presses = first.filter(\.isPress)
        runner.expect(presses == [.press(device: "button", .single)], "a bouncing press gave \(first), expected one single press")
        // Two presses 150 ms apart: one double press, no single.
        for _ in 0..<2 {
            try pull(line, high: false)
            usleep(100_000)
            try pull(line, high: true)
            usleep(150_000)
        }
        let second = events.wait(until: { $0.isPress }, timeout: .seconds(3))
        runner.expect(second.filter(\.isPress) == [.press(device: "button", .double)], "two quick presses gave \(second), expected one double press")
        let after = events.wait(until: { $0.isPress }, timeout: .milliseconds(600))
        runner.expect(!after.contains(where: \.isPress), "a press came after the double press: \(after)")
    }
}

/// The events the bank delivered on its thread, waited for with a bound.
final class EventBox: @unchecked Sendable {
    private let condition = NSCondition()
    private var events: [InputEvent] = []
    private var error: GPIOError?

    func add(_ new: [InputEvent]) {
        condition.lock()
        events += new
        condition.broadcast()
        condition.unlock()
    }

    func fail(_ e: GPIOError) {
        condition.lock()
        error = e
        condition.broadcast()
        condition.unlock()
    }

    /// The events up to the first that `done` accepts (all of them when the time runs out first),
    /// removed from the box.
    func wait(until done: (InputEvent) -> Bool, timeout: Duration) -> [InputEvent] {
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        condition.lock()
        defer { condition.unlock() }
        while !events.contains(where: done) && error == nil && condition.wait(until: deadline) {}
        let end = events.firstIndex(where: done).map { $0 + 1 } ?? events.count
        let taken = Array(events.prefix(end))
        events.removeFirst(end)
        return taken
    }
}

extension InputEvent {
    var isPress: Bool {
        if case .press = self { return true }
        return false
    }
}
