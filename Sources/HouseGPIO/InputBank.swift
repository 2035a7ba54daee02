import Foundation
import HouseCore

/// The inputs of one node (buttons, contacts, motion sensors): their lines requested for both
/// edges, and one thread of its own that waits for the edges (a blocking C wait, never on the
/// Swift concurrency pool), debounces them on the kernel's timestamps and hands the events out
/// as values.
public final class InputBank: @unchecked Sendable {
    public static var consumer: String { "housectl" }

    public let chip: any GPIOChip
    /// The level of each contact and motion sensor when the bank started.
    public let initialEvents: [InputEvent]
    private let lock = NSLock()
    private var states: [Int: InputLineState]
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)
    private var started = false
    /// The longest the thread waits before it looks at `stopping` again.
    static let pollInterval: Duration = .milliseconds(100)

    /// Requests the input lines of `node` in `configuration` on `chip` (lines already requested
    /// are released again when one fails).
    public init(configuration: HouseConfiguration, node: NodeID, chip: any GPIOChip) throws(GPIOError) {
        self.chip = chip
        var states: [Int: InputLineState] = [:]
        var initial: [InputEvent] = []
        for device in configuration.devices {
            guard let input = device.input, input.node == node else { continue }
            do {
                try chip.requestInput(line: input.line, consumer: Self.consumer, activeLow: input.activeLow, bias: input.bias)
                let level = try chip.inputValue(line: input.line)
                states[input.line] = InputLineState(device: device.id, kind: device.kind, input: input, level: level)
                if device.kind != .button { initial.append(.level(device: device.id, active: level, chatter: 0, initial: true)) }
            } catch {
                for line in states.keys { chip.release(line: line) }
                chip.release(line: input.line)
                throw error
            }
        }
        self.states = states
        self.initialEvents = initial
    }

    /// Whether the node has inputs at all.
    public var isEmpty: Bool { lock.withLock { states.isEmpty } }

    /// Starts the thread; `deliver` gets each batch of events on it (it must not block).
    public func start(_ deliver: @escaping @Sendable ([InputEvent]) -> Void, onError: @escaping @Sendable (GPIOError) -> Void) {
        lock.withLock { started = true }
        let thread = Thread { [self] in
            run(deliver, onError: onError)
            finished.signal()
        }
        thread.name = "housectl-inputs"
        thread.start()
    }

    /// Stops the thread (within `pollInterval`) and releases the lines.
    public func stop() {
        let wasStarted = lock.withLock { () -> Bool in
            stopping = true
            return started
        }
        (chip as? SimulatedChip)?.nudge()
        if wasStarted { finished.wait() }
        for line in lock.withLock({ Array(states.keys) }) { chip.release(line: line) }
    }

    private func run(_ deliver: @Sendable ([InputEvent]) -> Void, onError: @Sendable (GPIOError) -> Void) {
        while !lock.withLock({ stopping }) {
            let now = chip.edgeClockNow
            let due = lock.withLock { states.values.compactMap(\.nextDeadline).min() }
            let wait = due.map { max(.zero, min($0 - now, Self.pollInterval)) } ?? Self.pollInterval
            let edges: [GPIOEdgeEvent]
            do {
                edges = try chip.waitForEdges(timeout: wait)
            } catch {
                onError(error)
                return
            }
            let later = chip.edgeClockNow
            let events = lock.withLock { () -> [InputEvent] in
                var out: [InputEvent] = []
                // Each edge in its turn: what had settled before it counts at its time (a
                // press and its release read in one go are still a press).
                for e in edges where states[e.line] != nil {
                    out += states[e.line]!.check(now: e.at)
                    states[e.line]!.edge(e)
                }
                for line in states.keys.sorted() { out += states[line]!.check(now: later) }
                return out
            }
            if !events.isEmpty { deliver(events) }
        }
    }
}
