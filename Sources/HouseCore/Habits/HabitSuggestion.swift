import Foundation

/// What the house offers to do about a habit: a new routine, an addition to a routine, a run
/// time for a routine, a `max_on`, a rule, a mode; with the evidence, a sentence, and the
/// house.yaml snippet that does it.
///
/// `id` is a hash of what is suggested, at the grain a person would call it the same suggestion
/// (`key`: for a time of day, what is done, on which days, at which half hour, whatever is
/// offered for it (a new routine, an addition to a routine, a run time); the device's `max_on` to
/// the quarter hour; the two steps of a rule; the devices of a mode and how they are switched),
/// never of the evidence: the same habit gives the same id run after run, so an answered
/// (accepted or dismissed) suggestion is recognised; when the habit changes (another half hour,
/// other days, another device) the id changes and it is a new suggestion.
public struct HabitSuggestion: Sendable, Hashable {
    /// The kinds of suggestion.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// A new routine relevant in the habit's window, on its days.
        case newRoutine = "new-routine"
        /// The device added to the mode a routine sets, when the habit falls in that routine's window.
        case addToRoutine = "add-to-routine"
        /// A run time (`run_at`) for a shortcut-only routine that does what people do by hand
        /// in its window.
        case runAt = "run-at"
        /// `max_on` for a device habitually switched off after about the same time.
        case maxOn = "max-on"
        /// A rule: when the first step happens, do the second.
        case rule
        /// A mode for devices habitually switched together.
        case mode
    }

    public var id: String
    public var kind: Kind
    public var habit: Habit
    /// The suggestion as a sentence, with its evidence.
    public var text: String
    /// The house.yaml snippet that implements it. Items whose id is already in house.yaml are to
    /// be merged into that item key by key (`ConfigurationSnippet.merge`), others added.
    public var yaml: String
    /// The routine it makes, or the existing routine it adds to or gives a run time.
    public var routine: RoutineID?
    /// The mode the habit sets, the mode it adds a device to, or the mode it makes.
    public var mode: ModeID?
    /// The `confirm: true` devices (or the mode that needs a yes) it involves; the text says so.
    public var confirmNotes: [String]

    public init(kind: Kind, key: String, habit: Habit, text: String, yaml: String, routine: RoutineID? = nil, mode: ModeID? = nil,
                confirmNotes: [String] = []) {
        self.id = Self.stableID(key)
        self.kind = kind
        self.habit = habit
        self.text = text
        self.yaml = yaml
        self.routine = routine
        self.mode = mode
        self.confirmNotes = confirmNotes
    }

    /// `s-` and 16 hex digits: FNV-1a (64 bits) of the key.
    static func stableID(_ key: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "s-" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}
