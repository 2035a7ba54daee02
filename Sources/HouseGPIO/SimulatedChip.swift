import Foundation
import HouseCore

/// An in-memory GPIO chip with the kernel's semantics: lines are requested as outputs with their
/// active-low flag and initial value in one step, a line held by one consumer is busy for the
/// others, lines past the end of the chip are missing, and a released line keeps its level.
///
/// Every write is recorded as an `Edge` with its time from the injected clock, for tests and for
/// `housectl relays --gpio sim`; a chip made with a `recordLimit` (the daemon's) keeps the newest.
public final class SimulatedChip: GPIOChip, @unchecked Sendable {
    /// One write to a line: a request (initial value) or a later set.
    public struct Edge: Sendable, Equatable, CustomStringConvertible {
        public enum Kind: String, Sendable { case request, set }
        public var line: Int
        public var kind: Kind
        /// Logical value written (true = relay energised).
        public var logical: Bool
        /// Physical level that resulted (true = high).
        public var physical: Bool
        /// Time since the chip was created, on the injected clock.
        public var at: Duration

        public init(line: Int, kind: Kind, logical: Bool, physical: Bool, at: Duration) {
            self.line = line
            self.kind = kind
            self.logical = logical
            self.physical = physical
            self.at = at
        }

        public var description: String {
            "\(at) line \(line) \(kind.rawValue) \(logical ? "on" : "off") (\(physical ? "high" : "low"))"
        }
    }

    private struct Line {
        var consumer: String?
        var heldByUs = false
        var isOutput = false
        var isInput = false
        var activeLow = false
        /// Physical level; nil while the line was never driven (an input, floating or pulled).
        var physical: Bool?
    }

    public let name: String
    public let label: String
    public let lineCount: Int

    private let lock = NSCondition()
    private var lines: [Int: Line] = [:]
    /// Edges of held input lines not yet taken by `waitForEdges`.
    private var pendingEdges: [GPIOEdgeEvent] = []
    /// Set by `nudge()`: the next (or current) wait returns at once.
    private var nudged = false
    private var recorded: RecentLog<Edge>
    private let elapsed: @Sendable () -> Duration

    /// A chip with `lineCount` lines whose edges are timed by `clock`, recording every write, or
    /// the newest `recordLimit` (a chip that runs for months).
    public init<C: Clock>(name: String = "gpiochip0", label: String = "housectl-simulated", lineCount: Int = 54,
                          recordLimit: Int? = nil, clock: C)
    where C.Duration == Duration {
        self.name = name
        self.label = label
        self.lineCount = lineCount
        self.recorded = RecentLog(limit: recordLimit)
        let start = clock.now
        self.elapsed = { start.duration(to: clock.now) }
    }

    /// Every write so far (the newest `recordLimit`), in order.
    public var edges: [Edge] { lock.withLock { recorded.elements } }

    /// The physical level of a line (nil when it was never driven).
    public func physicalLevel(line: Int) -> Bool? { lock.withLock { lines[line]?.physical } }

    /// Simulates another program holding `line` (so requests fail as busy, naming `consumer`).
    public func hold(line: Int, consumer: String) {
        lock.withLock {
            var l = lines[line] ?? Line()
            l.consumer = consumer
            l.heldByUs = false
            lines[line] = l
        }
    }

    /// Sets the physical level of a free line, as a pull resistor or a previous owner left it.
    public func setFloatingLevel(line: Int, high: Bool) {
        lock.withLock {
            var l = lines[line] ?? Line()
            l.physical = high
            lines[line] = l
        }
    }

    public func requestOutput(line: Int, consumer: String, activeLow: Bool, initialValue: Bool) throws(GPIOError) {
        try request(line, consumer: consumer, activeLow: activeLow, call: "SimulatedChip.requestOutput") { l in
            l.isOutput = true
            l.physical = initialValue != activeLow
            recorded.append(Edge(line: line, kind: .request, logical: initialValue, physical: initialValue != activeLow, at: elapsed()))
        }
    }

    /// Takes `line` for this process (a missing or busy line refused as the kernel does), then
    /// lets `configure` set it up, all under the lock.
    private func request(_ line: Int, consumer: String, activeLow: Bool, call: String, _ configure: (inout Line) -> Void) throws(GPIOError) {
        guard line >= 0, line < lineCount else {
            throw .lineMissing(call: call, chip: name, line: line, lineCount: lineCount)
        }
        lock.lock()
        defer { lock.unlock() }
        var l = lines[line] ?? Line()
        if let holder = l.consumer {
            throw .lineBusy(call: call, chip: name, line: line, holder: holder)
        }
        l.consumer = consumer
        l.heldByUs = true
        l.activeLow = activeLow
        configure(&l)
        lines[line] = l
    }

    public func setValue(line: Int, to value: Bool) throws(GPIOError) {
        lock.lock()
        defer { lock.unlock() }
        do {
            guard var l = lines[line], l.heldByUs else { throw .lineNotHeld(chip: name, line: line) }
            l.physical = value != l.activeLow
            lines[line] = l
            recorded.append(Edge(line: line, kind: .set, logical: value, physical: value != l.activeLow, at: elapsed()))
        }
    }

    public func info(line: Int) throws(GPIOError) -> GPIOLineInfo {
        guard line >= 0, line < lineCount else {
            throw .lineMissing(call: "SimulatedChip.info", chip: name, line: line, lineCount: lineCount)
        }
        return lock.withLock {
            let l = lines[line] ?? Line()
            return GPIOLineInfo(
                line: line, name: "GPIO\(line)", consumer: l.consumer, isOutput: l.isOutput, activeLow: l.activeLow,
                heldByUs: l.heldByUs, logicalValue: l.physical.map { $0 != l.activeLow })
        }
    }

    public func release(line: Int) {
        lock.withLock {
            guard var l = lines[line], l.heldByUs else { return }
            l.consumer = nil
            l.heldByUs = false
            l.isInput = false
            lines[line] = l
        }
    }

    // MARK: Inputs

    public func requestInput(line: Int, consumer: String, activeLow: Bool, bias: InputBias) throws(GPIOError) {
        try request(line, consumer: consumer, activeLow: activeLow, call: "SimulatedChip.requestInput") { l in
            l.isOutput = false
            l.isInput = true
            // Never set from outside (`setFloatingLevel`, `setInput`): the simulated house is at
            // rest, every input inactive (no button pressed, every door closed).
            if l.physical == nil { l.physical = activeLow }
        }
    }

    public func inputValue(line: Int) throws(GPIOError) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let l = lines[line], l.heldByUs, l.isInput else { throw .lineNotHeld(chip: name, line: line) }
        return (l.physical ?? false) != l.activeLow
    }

    /// Drives an input line as the outside world does (a button, a contact): `active` is the
    /// logical level; an edge is recorded at the clock's time when the level changes.
    public func setInput(line: Int, active: Bool) {
        lock.withLock {
            var l = lines[line] ?? Line()
            let physical = active != l.activeLow
            guard l.physical != physical else { return }
            l.physical = physical
            lines[line] = l
            if l.heldByUs && l.isInput {
                pendingEdges.append(GPIOEdgeEvent(line: line, active: active, at: elapsed()))
                lock.broadcast()
            }
        }
    }

    /// Makes a waiting `waitForEdges` return now (after a test moved the clock on, so that
    /// pending decisions are taken at the new time).
    public func nudge() {
        lock.withLock {
            nudged = true
            lock.broadcast()
        }
    }

    public func waitForEdges(timeout: Duration) throws(GPIOError) -> [GPIOEdgeEvent] {
        lock.lock()
        defer { lock.unlock() }
        if pendingEdges.isEmpty && !nudged {
            let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
            _ = lock.wait(until: Date().addingTimeInterval(max(0, seconds)))
        }
        nudged = false
        defer { pendingEdges = [] }
        return pendingEdges
    }

    public var edgeClockNow: Duration { elapsed() }
}
