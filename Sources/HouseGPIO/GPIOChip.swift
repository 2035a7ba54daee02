/// A GPIO chip as the relay bank sees it: output lines that are requested with their initial
/// value, driven, inspected and released.
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
