import Foundation
import HouseCore
import HouseTesting
import Synchronization
import Testing
@testable import HouseGPIO

/// Debounce and button presses on the kernel's timestamps (`InputLineState`), and the input
/// bank's thread on a simulated chip.
@Suite struct InputLineStateTests {
    func line(_ kind: DeviceKind, level: Bool = false) -> InputLineState {
        InputLineState(device: "in", kind: kind, input: GPIOInput(node: "n", line: 17), level: level)
    }

    func ms(_ n: Int64) -> Duration { .milliseconds(n) }

    /// Feeds edges (logical level, time in ms) and checks at each edge's time, as the bank does,
    /// then at `until`; returns every event.
    func feed(_ state: inout InputLineState, _ edges: [(Bool, Int64)], until: Int64) -> [InputEvent] {
        var out: [InputEvent] = []
        for (active, at) in edges {
            out += state.check(now: ms(at))
            state.edge(GPIOEdgeEvent(line: 17, active: active, at: ms(at)))
        }
        out += state.check(now: ms(until))
        return out
    }

    @Test func aLevelCountsOnceItHeldForTheDebounceTime() {
        var contact = line(.contact)
        #expect(feed(&contact, [(true, 1000)], until: 1049).isEmpty, "49 ms is not enough")
        #expect(contact.check(now: ms(1050)) == [.level(device: "in", active: true, chatter: 0, initial: false)])
        #expect(contact.nextDeadline == nil)
        // A bouncing reed switch: five edges within 12 ms, settling open.
        var bouncy = line(.contact)
        let events = feed(&bouncy, [(true, 0), (false, 3), (true, 5), (false, 9), (true, 12)], until: 62)
        #expect(events == [.level(device: "in", active: true, chatter: 4, initial: false)])
        // A glitch that comes back: chatter, no change.
        #expect(feed(&bouncy, [(false, 100), (true, 110)], until: 200) == [.chatter(device: "in", edges: 2)])
        #expect(bouncy.stable)
    }

    @Test func buttonPressesAreSingleDoubleOrLong() {
        var b = line(.button)
        // Single: pressed 100 ms, then nothing for the double-press time after the release edge.
        #expect(feed(&b, [(true, 0), (false, 100)], until: 499).isEmpty, "still waiting for a second press")
        #expect(b.check(now: ms(500)) == [.press(device: "in", .single)])
        // Double: the second press starts within 400 ms of the first release.
        #expect(feed(&b, [(true, 1000), (false, 1100), (true, 1300), (false, 1400)], until: 1450) == [.press(device: "in", .double)])
        #expect(b.check(now: ms(3000)).isEmpty, "no single after a double")
        // Long: held 800 ms, reported while still held; the release adds nothing.
        #expect(feed(&b, [(true, 5000)], until: 5799).isEmpty)
        #expect(b.check(now: ms(5800)) == [.press(device: "in", .long)])
        #expect(feed(&b, [(false, 7000)], until: 8000).isEmpty)
        // A bounce on the press is debounced: one single press.
        #expect(feed(&b, [(true, 9000), (false, 9002), (true, 9004), (false, 9150)], until: 9700)
                == [.chatter(device: "in", edges: 2), .press(device: "in", .single)])
        // A tap shorter than the debounce time is no press at all.
        #expect(feed(&b, [(true, 10_000), (false, 10_020)], until: 11_000) == [.chatter(device: "in", edges: 2)])
    }

    @Test func theNextDeadlineIsTheEarliestDecision() {
        var b = line(.button)
        b.edge(GPIOEdgeEvent(line: 17, active: true, at: ms(0)))
        #expect(b.nextDeadline == ms(50))
        _ = b.check(now: ms(50))
        #expect(b.nextDeadline == ms(800), "the long press")
        b.edge(GPIOEdgeEvent(line: 17, active: false, at: ms(200)))
        _ = b.check(now: ms(250))
        #expect(b.nextDeadline == ms(600), "the double-press window after the release")
    }
}

@Suite struct InputBankTests {
    static let configuration = HouseConfiguration(
        house: HouseInfo(name: "Test", timeZone: HouseZone(identifier: "UTC")!, latitude: 51.5, longitude: 0),
        nodes: [Node(id: "pi-main", board: "b")],
        rooms: [Room(id: "hall", name: "Hall")],
        devices: [
            Device(id: "button", room: "hall", kind: .button, endpoint: .input(GPIOInput(node: "pi-main", line: 17))),
            Device(id: "door", room: "hall", kind: .contact, endpoint: .input(GPIOInput(node: "pi-main", line: 27, activeLow: false))),
            Device(id: "elsewhere", room: "hall", kind: .motion, endpoint: .input(GPIOInput(node: "pi-other", line: 22))),
        ])

    /// The events the bank delivered, handed out one at a time to whoever waits.
    actor Collector {
        private var events: [InputEvent] = []
        private var waiter: CheckedContinuation<InputEvent, Never>?

        func add(_ event: InputEvent) {
            if let waiter {
                self.waiter = nil
                waiter.resume(returning: event)
            } else {
                events.append(event)
            }
        }

        func next() async -> InputEvent {
            if !events.isEmpty { return events.removeFirst() }
            return await withCheckedContinuation { waiter = $0 }
        }
    }

    @Test func theThreadDeliversDebouncedEventsAndReleasesTheLinesAtStop() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 0))
        let chip = SimulatedChip(clock: clock)
        chip.setFloatingLevel(line: 27, high: false)  // the door is closed: its reed switch pulls low
        let bank = try InputBank(configuration: Self.configuration, node: "pi-main", chip: chip)
        #expect(bank.initialEvents == [.level(device: "door", active: false, chatter: 0, initial: true)])
        #expect(try chip.info(line: 17).consumer == "housectl")
        #expect(try chip.info(line: 22).consumer == nil, "only this node's inputs")
        let collector = Collector()
        bank.start({ events in Task { for e in events { await collector.add(e) } } }, onError: { _ in })
        // The door opens (high): one event once 50 ms have passed on the clock.
        chip.setInput(line: 27, active: true)
        clock.advance(by: .milliseconds(50))
        chip.nudge()
        let opened = try await withTimeout(.seconds(10), "the door's level") { await collector.next() }
        #expect(opened == .level(device: "door", active: true, chatter: 0, initial: false))
        // A press of 100 ms, then the double-press window: one single press.
        chip.setInput(line: 17, active: true)
        clock.advance(by: .milliseconds(100))
        chip.setInput(line: 17, active: false)
        clock.advance(by: .milliseconds(450))
        chip.nudge()
        let pressed = try await withTimeout(.seconds(10), "the press") { await collector.next() }
        #expect(pressed == .press(device: "button", .single))
        bank.stop()
        #expect(try chip.info(line: 17).consumer == nil)
        #expect(try chip.info(line: 27).consumer == nil)
    }
}
