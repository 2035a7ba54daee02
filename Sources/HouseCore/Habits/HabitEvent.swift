import Foundation

/// One thing done at one instant: the history habits are learnt from (a device switched, a mode
/// set, a routine run), from the state store or a JSON-lines file (`HabitHistory`).
public struct HabitEvent: Sendable, Hashable {
    public var time: Date
    public var subject: HabitSubject

    public init(time: Date, subject: HabitSubject) {
        self.time = time
        self.subject = subject
    }

    /// The order habits are found in: by time, then by subject, so that the same events in any
    /// order give the same habits.
    static func precedes(_ a: HabitEvent, _ b: HabitEvent) -> Bool {
        a.time != b.time ? a.time < b.time : a.subject < b.subject
    }
}
