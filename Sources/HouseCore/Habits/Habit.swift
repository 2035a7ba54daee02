import Foundation

/// Something the household does regularly, found in its history by `HabitFinder`, with the
/// evidence for it.
public struct Habit: Sendable, Hashable {
    /// The shape of a habit.
    public enum Pattern: Sendable, Hashable {
        /// `subject` at about the same local time of day (`from`...`to`, which may cross midnight)
        /// on `days`.
        case timeOfDay(HabitSubject, days: DaySet, from: TimeOfDay, to: TimeOfDay)
        /// `first`, then `then` within `within` (hall light on, then kitchen light on).
        case sequence(HabitSubject, then: HabitSubject, within: Duration)
        /// `device` switched on (opened), then off again after about the same time, at most `upTo`.
        case duration(DeviceID, upTo: Duration)
        /// Devices switched the same way within `within` of each other, in any order (sorted).
        case together([HabitSubject], within: Duration)
    }

    public var pattern: Pattern
    public var evidence: HabitEvidence

    public init(pattern: Pattern, evidence: HabitEvidence) {
        self.pattern = pattern
        self.evidence = evidence
    }

    /// The devices the habit switches.
    public var devices: [DeviceID] {
        switch pattern {
        case .timeOfDay(let s, _, _, _): s.device.map { [$0] } ?? []
        case .sequence(let a, let b, _): [a.device, b.device].compactMap { $0 }
        case .duration(let d, _): [d]
        case .together(let subjects, _): subjects.compactMap(\.device)
        }
    }

    /// A time-of-day habit's window on `day` when `day` is one of its days (a window across
    /// midnight ends the next day); nil for another day or another kind of habit.
    public func window(on day: LocalDate, calendar: HouseCalendar) -> (start: Date, end: Date)? {
        guard case .timeOfDay(_, let days, let from, let to) = pattern, days.contains(weekday: day.weekday) else { return nil }
        return (calendar.resolve(from, on: day).earliest, calendar.resolve(to, on: to <= from ? day.adding(days: 1) : day).earliest)
    }
}
