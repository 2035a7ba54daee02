/// A relay board: which GPIO chip and lines its channels are wired to (`devices/*.yaml`).
public struct BoardProfile: Sendable, Equatable {
    public var id: String
    public var name: String
    /// Default GPIO chip (name, path, label or number), e.g. `gpiochip0`.
    public var chip: String
    /// Whether the relay coil energises when the line is driven low (most opto-isolated boards).
    public var activeLow: Bool
    /// Channel number (1-based) to GPIO line offset (BCM number on a Pi).
    public var channels: [Int: Int]
    /// GPIO lines left free by the board for inputs (buttons, contacts), when the profile says.
    public var inputLines: [Int]?
    /// Wiring notes for people.
    public var notes: String?

    public init(id: String, name: String, chip: String, activeLow: Bool, channels: [Int: Int], inputLines: [Int]? = nil,
                notes: String? = nil) {
        self.inputLines = inputLines
        self.id = id
        self.name = name
        self.chip = chip
        self.activeLow = activeLow
        self.channels = channels
        self.notes = notes
    }
}
