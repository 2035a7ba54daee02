import Foundation

/// Finds the household's habits in a history of events: deterministic, explainable, on the
/// device. No clock of its own: "now" is an argument, and local times are the house's
/// (`HouseCalendar`), so a habit at 06:45 stays at 06:45 across a change of daylight saving time.
///
/// Three kinds, each over the last `lookbackDays` days up to `now`:
/// - **time of day** (`HabitFinder+TimeOfDay`): a device switched, a mode set or a routine run
///   within an hour's band of the clock (circular: 23:50 and 00:10 are close) on a recognisable
///   set of days, on most of those days the house was lived in;
/// - **sequences** (`HabitFinder+Sequences`): one thing, then another within `sequenceGap`, on
///   most of the times the first happened;
/// - **durations** (`HabitFinder+Durations`): a device switched on and off again after about the
///   same time, most of the times;
/// - **together** (`HabitFinder+Together`): devices switched the same way within `togetherGap`
///   of each other, in either order, most of the times (a set, where a sequence has an order).
///
/// Nothing is learnt from fewer than `settings.minOccurrences` occurrences, nor from occurrences
/// spanning less than `settings.minWeeks` weeks.
public struct HabitFinder: Sendable {
    public var calendar: HouseCalendar
    public var settings: SuggestionSettings
    /// How far back the history is read, in days (default eight weeks).
    public var lookbackDays: Int
    /// The width of the band of the clock a time-of-day habit is looked for in.
    public var bandMinutes = 60
    /// A weekday belongs to a habit's days when the habit was seen on this share of them.
    public var dayShare = 0.5
    /// A habit must have been seen on this share of its chances ("most of the recent weeks").
    public var minShare = 0.6
    /// The longest gap between the two steps of a sequence.
    public var sequenceGap: Duration = .seconds(300)
    /// A sequence's second step must follow this share of its first steps.
    public var sequenceShare = 0.5
    /// Durations within this ratio of each other are "about the same time".
    public var durationRatio = 1.5
    /// The longest gap between devices switched together.
    public var togetherGap: Duration = .seconds(90)
    /// Devices switched in the same order every time are still a set when they are typically
    /// this close (one movement of a hand, not a step after another).
    public var togetherOrderless: Duration = .seconds(20)

    public init(calendar: HouseCalendar, settings: SuggestionSettings = SuggestionSettings(), lookbackDays: Int = 56) {
        self.calendar = calendar
        self.settings = settings
        self.lookbackDays = lookbackDays
    }

    /// The finder for a configured house, with its `suggestions:` settings.
    public init(configuration: HouseConfiguration) {
        self.init(calendar: HouseCalendar(house: configuration.house), settings: configuration.suggestions)
    }

    /// Every habit in `events` (any order) up to `now`, in a stable order: time-of-day habits,
    /// sequences, durations, sets switched together, each by subject. Two devices switched
    /// together are a set, not a sequence in both orders.
    public func habits(in events: [HabitEvent], now: Date) -> [Habit] {
        let start = calendar.start(of: calendar.localDate(of: now).adding(days: 1 - lookbackDays))
        let recent = events.filter { $0.time >= start && $0.time <= now }.sorted(by: HabitEvent.precedes)
        guard !recent.isEmpty else { return [] }
        let local = recent.map { LocalEvent(event: $0, calendar: calendar) }
        let together = togetherHabits(local)
        let sets = together.compactMap { habit -> Set<HabitSubject>? in
            if case .together(let subjects, _) = habit.pattern { return Set(subjects) }
            return nil
        }
        return timeOfDayHabits(local, now: now) + sequenceHabits(local, apart: sets) + durationHabits(local) + together
    }

    /// Whether occurrences on `days` are enough to learn from: the count, and the span from the
    /// first to the last.
    func enough(_ days: [LocalDate]) -> Bool {
        guard days.count >= settings.minOccurrences, let first = days.min(), let last = days.max() else { return false }
        return last.daysSinceEpoch - first.daysSinceEpoch + 1 >= 7 * settings.minWeeks
    }
}

/// An event with its local day and minute of the day.
struct LocalEvent: Sendable {
    var event: HabitEvent
    var day: LocalDate
    var minute: Int

    init(event: HabitEvent, calendar: HouseCalendar) {
        self.event = event
        (day, minute) = calendar.localDateAndMinute(of: event.time)
    }
}

/// Medians and spreads of the evidence.
enum HabitStatistics {
    /// The median of sorted-or-not `values` (the lower middle of an even count, so it is a value seen).
    static func median(_ values: [Int]) -> Int {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[(sorted.count - 1) / 2]
    }

    /// The median absolute deviation from `center`.
    static func spread(_ values: [Int], around center: Int) -> Int {
        median(values.map { abs($0 - center) })
    }
}
