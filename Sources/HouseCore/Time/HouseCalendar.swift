import Foundation

/// The house's calendar: its time zone and position, turning local days, clock times and sun
/// events into instants and back. Pure and value-typed; safe to copy into any task.
public struct HouseCalendar: Sendable, Hashable {
    public let timeZone: HouseZone
    public let sun: SunCalculator

    public init(timeZone: HouseZone, latitude: Double, longitude: Double) {
        self.timeZone = timeZone
        self.sun = SunCalculator(latitude: latitude, longitude: longitude, timeZone: timeZone)
    }

    /// The calendar of a configured house.
    public init(house: HouseInfo) {
        self.init(timeZone: house.timeZone, latitude: house.latitude, longitude: house.longitude)
    }

    /// The local day `date` falls on.
    public func localDate(of date: Date) -> LocalDate {
        localDateAndMinute(of: date).date
    }

    /// The local day and the minutes since local midnight (wall clock) of `date`.
    public func localDateAndMinute(of date: Date) -> (date: LocalDate, minute: Int) {
        let (day, second) = wallClock(of: date, offset: timeZone.secondsFromGMT(for: date))
        return (day, second / 60)
    }

    /// The local day and the seconds since local midnight of `date` at `offset` seconds east of UTC.
    private func wallClock(of date: Date, offset: Int) -> (date: LocalDate, second: Int) {
        let wall = Int(date.timeIntervalSince1970.rounded(.down)) + offset
        let days = Int((Double(wall) / 86400).rounded(.down))
        return (LocalDate(daysSinceEpoch: days), wall - days * 86400)
    }

    /// Local wall time of `date` as `HH:MM`.
    public func clockText(_ date: Date) -> String {
        let m = localDateAndMinute(of: date).minute
        return TimeOfDay(hour: m / 60, minute: m % 60).description
    }

    /// Local `YYYY-MM-DD HH:MM` (with the zone abbreviation when `zone` is true).
    public func dateTimeText(_ date: Date, zone: Bool = false) -> String {
        let (d, _) = localDateAndMinute(of: date)
        var text = "\(d) \(clockText(date))"
        if zone { text += " \(timeZone.localName(for: date))" }
        return text
    }

    /// `date` in ISO 8601 with the zone's offset at that instant, to the second:
    /// `2026-07-01T01:30:00+01:00` (`Z` where the offset is zero), as `ISO8601DateFormatter` writes it.
    public func iso8601Text(_ date: Date) -> String {
        let offset = timeZone.secondsFromGMT(for: date)
        let (day, second) = wallClock(of: date, offset: offset)
        if offset == 0 { return day.iso8601(second: second) + "Z" }
        let minutes = abs(offset) / 60
        return day.iso8601(second: second) + (offset < 0 ? "-" : "+") + TimeOfDay(hour: minutes / 60, minute: minutes % 60).description
    }

    /// The first instant of a local day (its midnight, or the end of a gap that swallowed it).
    public func start(of day: LocalDate) -> Date {
        resolve(TimeOfDay(hour: 0, minute: 0), on: day).earliest
    }

    /// Maps a local wall-clock time on a local day to instants, reporting skipped and repeated hours.
    public func resolve(_ time: TimeOfDay, on day: LocalDate) -> LocalTimeResolution {
        resolve(wallSeconds: Double(day.daysSinceEpoch * 86400 + time.minutesSinceMidnight * 60))
    }

    /// Parses `YYYY-MM-DD HH:MM` (or `YYYY-MM-DDTHH:MM`) in the house zone; a time in a skipped
    /// hour maps to the end of the gap, one in a repeated hour to its first occurrence.
    public func parseLocal(_ text: String) -> Date? {
        let t = text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "T", with: " ")
        let parts = t.split(separator: " ", omittingEmptySubsequences: true)
        guard let first = parts.first, let day = LocalDate(String(first)) else { return nil }
        if parts.count == 1 { return start(of: day) }
        guard parts.count == 2, let time = TimeOfDay(String(parts[1])) else { return nil }
        return resolve(time, on: day).earliest
    }

    /// When a sun event happens on a local day.
    public func occurrence(of event: SunEvent, on day: LocalDate) -> SunOccurrence {
        sun.occurrence(of: event, on: day)
    }

    private func resolve(wallSeconds wall: Double) -> LocalTimeResolution {
        let offEarly = Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall - 86400)))
        let offLate = Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall + 86400)))
        let c1 = wall - offEarly
        let c2 = wall - offLate
        func valid(_ c: Double) -> Bool {
            Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: c))) + c == wall
        }
        let v1 = valid(c1)
        let v2 = c2 != c1 && valid(c2)
        switch (v1, v2) {
        case (true, true):
            return .repeated(first: Date(timeIntervalSince1970: min(c1, c2)),
                             second: Date(timeIntervalSince1970: max(c1, c2)))
        case (true, false):
            return .unique(Date(timeIntervalSince1970: c1))
        case (false, true):
            return .unique(Date(timeIntervalSince1970: c2))
        case (false, false):
            let lower = Date(timeIntervalSince1970: min(c1, c2))
            let end = timeZone.nextTransition(after: lower)
                ?? Date(timeIntervalSince1970: max(c1, c2))
            return .skipped(gapEnd: end)
        }
    }
}
