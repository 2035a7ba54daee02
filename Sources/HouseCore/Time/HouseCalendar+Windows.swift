import Foundation

extension HouseCalendar {
    /// The instant of a time edge on a local day.
    ///
    /// Clock times in a skipped hour map to the end of the gap. In a repeated hour a window start
    /// takes the first occurrence and a window end the second (`latest`), so the window covers
    /// every instant whose clock reading is inside it.
    public func instant(of edge: TimeEdge, on day: LocalDate, latest: Bool = false) -> Result<Date, MissingSunEvent> {
        switch edge {
        case .clock(let time):
            let r = resolve(time, on: day)
            return .success(latest ? r.latest : r.earliest)
        case .sun(let event, let offset):
            switch occurrence(of: event, on: day) {
            case .at(let d):
                return .success(d.addingTimeInterval(offset.scheduleSeconds))
            case let other:
                return .failure(MissingSunEvent(event: event, day: day, occurrence: other))
            }
        }
    }

    /// Resolves a configured window on a local day. See `WindowResolution` for missing sun edges.
    ///
    /// The end is taken on the same day when it comes after the start, otherwise on the next day
    /// (a window that crosses midnight, or a full day when both edges are equal).
    public func window(_ spec: TimeWindowSpec, on day: LocalDate) -> WindowResolution {
        guard spec.days.contains(weekday: day.weekday) else { return .notOnThisDay }
        let start: Date
        switch instant(of: spec.from, on: day) {
        case .success(let d): start = d
        case .failure(let m): return .noSunEvent(m.event, m.occurrence)
        }
        var end: Date
        switch instant(of: spec.to, on: day, latest: true) {
        case .success(let d): end = d
        case .failure(let m): return .noSunEvent(m.event, m.occurrence)
        }
        if end <= start {
            switch instant(of: spec.to, on: day.adding(days: 1), latest: true) {
            case .success(let d): end = d
            case .failure(let m): return .noSunEvent(m.event, m.occurrence)
            }
        }
        guard end > start else { return .notOnThisDay }
        return .open(TimeWindow(day: day, start: start, end: end, spec: spec))
    }

    /// The window occurrence that contains `date`, if any: the one starting that local day, or a
    /// midnight-crossing one from the day before. When two overlap, the later start wins.
    public func window(_ spec: TimeWindowSpec, containing date: Date) -> TimeWindow? {
        let today = localDate(of: date)
        for offset in [1, 0, -1, -2] {
            if let w = window(spec, on: today.adding(days: offset)).window, w.contains(date) { return w }
        }
        return nil
    }
}
