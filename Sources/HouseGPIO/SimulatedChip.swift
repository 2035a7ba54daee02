import Foundation

/// An in-memory GPIO chip with the kernel's semantics: lines are requested as outputs with their
/// active-low flag and initial value in one step, a line held by one consumer is busy for the
/// others, lines past the end of the chip are missing, and a released line keeps its level.
///
/// Every write is recorded as an `Edge` with its time from the injected clock, for tests and for
/// `housectl relays --gpio sim`.
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
        var activeLow = false
        /// Physical level; nil while the line was never driven (an input, floating or pulled).
        var physical: Bool?
    }

    public let name: String
    public let label: String
    public let lineCount: Int

    private let lock = NSLock()
    private var lines: [Int: Line] = [:]
    private var recorded: [Edge] = []
    private let elapsed: @Sendable () -> Duration

    /// A chip with `lineCount` lines whose edges are timed by `clock`.
    public init<C: Clock>(name: String = "gpiochip0", label: String = "housectl-simulated", lineCount: Int = 54, clock: C)
    where C.Duration == Duration {
        self.name = name
        self.label = label
        self.lineCount = lineCount
        let start = clock.now
        self.elapsed = { start.duration(to: clock.now) }
    }

    /// Every write so far, in order.
    public var edges: [Edge] { lock.withLock { recorded } }

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
        let call = "SimulatedChip.requestOutput"
        guard line >= 0, line < lineCount else {
            throw .lineMissing(call: call, chip: name, line: line, lineCount: lineCount)
        }
        lock.lock()
        defer { lock.unlock() }
        do {
            var l = lines[line] ?? Line()
            if let holder = l.consumer {
                throw .lineBusy(call: call, chip: name, line: line, holder: holder)
            }
            l.consumer = consumer
            l.heldByUs = true
            l.isOutput = true
            l.activeLow = activeLow
            l.physical = initialValue != activeLow
            lines[line] = l
            recorded.append(Edge(line: line, kind: .request, logical: initialValue, physical: initialValue != activeLow, at: elapsed()))
        }
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
            lines[line] = l
        }
    }
}
