import HouseCore

/// A GPIO chip as the relay bank and the input bank see it: output lines that are requested with
/// their initial value, driven, inspected and released; input lines whose edges are waited for.
///
/// Two implementations: `LibgpiodChip` (the kernel's GPIO character device through libgpiod) and
/// `SimulatedChip` (in memory, for tests, previews and machines without GPIO).
///
/// Values are *logical*: `true` means the relay is energised. The chip applies active-low, so the
/// physical level is `value != activeLow`.
public protocol GPIOChip: AnyObject, Sendable {
    /// The kernel name of the chip, e.g. `gpiochip0`.
    var name: String { get }
    /// The chip's label, e.g. `pinctrl-bcm2711`.
    var label: String { get }
    /// Number of lines the chip has.
    var lineCount: Int { get }

    /// Requests `line` as an output held by `consumer`, with the active-low flag and the initial
    /// logical value in the same request, so the physical level is right from the first instant.
    func requestOutput(line: Int, consumer: String, activeLow: Bool, initialValue: Bool) throws(GPIOError)

    /// Drives a line this object holds to a logical value.
    func setValue(line: Int, to value: Bool) throws(GPIOError)

    /// What the kernel (or the simulation) knows about a line.
    func info(line: Int) throws(GPIOError) -> GPIOLineInfo

    /// Releases a held line (it keeps its level where the hardware allows). No-op when not held.
    func release(line: Int)

    /// Requests `line` as an input reporting both edges, with its active-low flag and pull.
    func requestInput(line: Int, consumer: String, activeLow: Bool, bias: InputBias) throws(GPIOError)

    /// The logical level of a held input line (true = active: pressed, open, motion).
    func inputValue(line: Int) throws(GPIOError) -> Bool

    /// Waits up to `timeout` for edges on the held input lines and returns them, oldest first,
    /// with the kernel's timestamps (empty when none came). It blocks: call it from a thread of
    /// its own (`InputBank`), never from the Swift concurrency pool.
    func waitForEdges(timeout: Duration) throws(GPIOError) -> [GPIOEdgeEvent]

    /// Now, on the clock of the edges' timestamps (the kernel's monotonic clock).
    var edgeClockNow: Duration { get }
}

/// One edge of an input line, copied out of C: the logical level after it and the kernel's time.
public struct GPIOEdgeEvent: Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    /// True when the line became active (logical high: pressed, open, motion).
    public var active: Bool
    /// The kernel's timestamp (CLOCK_MONOTONIC), or the simulated chip's clock.
    public var at: Duration

    public init(line: Int, active: Bool, at: Duration) {
        self.line = line
        self.active = active
        self.at = at
    }

    public var description: String { "line \(line) \(active ? "active" : "inactive") at \(at)" }
}

/// The state of one GPIO line.
public struct GPIOLineInfo: Sendable, Equatable {
    public var line: Int
    /// The line's name from the device tree, if any (e.g. `GPIO17`).
    public var name: String?
    /// Who holds the line (`housectl`, another program), or nil when free.
    public var consumer: String?
    public var isOutput: Bool
    public var activeLow: Bool
    /// Whether this process holds the line.
    public var heldByUs: Bool
    /// Logical value (true = relay energised), when it can be read without disturbing the line.
    public var logicalValue: Bool?

    public init(line: Int, name: String? = nil, consumer: String?, isOutput: Bool, activeLow: Bool, heldByUs: Bool, logicalValue: Bool?) {
        self.line = line
        self.name = name
        self.consumer = consumer
        self.isOutput = isOutput
        self.activeLow = activeLow
        self.heldByUs = heldByUs
        self.logicalValue = logicalValue
    }

    /// Physical level (true = high), when the logical value is known.
    public var physicalValue: Bool? { logicalValue.map { $0 != activeLow } }
}
