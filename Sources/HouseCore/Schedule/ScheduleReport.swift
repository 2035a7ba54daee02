import Foundation

/// The text the `housectl shortcuts` and `housectl routines` commands print, built here so the
/// CLI only parses arguments and prints.
public enum ScheduleReport {
    /// The relevant shortcuts at `instant`, ranked, with explanations.
    /// The shortcuts relevant at `instant`, ranked by their windows and by the household's
    /// `habits` that hold then (`HabitFinder`'s), and after them what people habitually do then
    /// that no routine does.
    public static func shortcuts(_ configuration: HouseConfiguration, at instant: Date, habits: [Habit] = [],
                                 history: [UsageRecord] = [], options: RelevanceOptions = RelevanceOptions()) -> String {
        let calendar = HouseCalendar(house: configuration.house)
        let engine = RelevanceEngine(routines: configuration.routines, calendar: calendar, options: options)
        let holding = configuration.habitsHolding(habits, at: instant)
        let relevant = engine.relevant(at: instant, history: history, habits: holding.byRoutine)
        let when = "\(calendar.localDate(of: instant).weekdayName) \(calendar.dateTimeText(instant, zone: true))"
        var out = relevant.isEmpty ? "No shortcut is relevant at \(when).\n" : "Relevant shortcuts at \(when):\n"
        for (i, r) in relevant.enumerated() {
            out += "  \(i + 1). \"\(r.shortcut)\" (\(r.routineID)): \(r.explanation)\n"
        }
        if !holding.others.isEmpty {
            out += "Done by habit at this time, by no routine:\n"
            for (habit, phrase) in holding.others {
                guard case .timeOfDay(_, let days, _, _) = habit.pattern else { continue }
                let e = habit.evidence
                out += "  - \(phrase): around \(e.medianTime?.description ?? "now") \(days == .everyDay ? "every day" : "on \(days)"), \(e.countText)\n"
            }
        }
        return out
    }

    /// The upcoming runs from `from` (excluded) to `to` (included), at most `limit`, computed on a
    /// virtual clock; jitter is shown as a bound, not drawn. Without `to`, the next `limit` runs
    /// within a year (a week when there is no limit either).
    public static func routines(_ configuration: HouseConfiguration, from: Date, to: Date?, limit: Int = .max) throws -> String {
        let calendar = HouseCalendar(house: configuration.house)
        let end = to ?? from.addingTimeInterval((limit == .max ? 7 : 366) * 86400)
        guard end > from else {
            throw ScheduleError.invalidRange(from: calendar.dateTimeText(from), to: calendar.dateTimeText(end))
        }
        guard limit > 0 else { throw ScheduleError.invalidCount(limit) }
        // Jitter is described, not drawn: plan the nominal runs.
        let scheduler = RoutineScheduler(nominal: configuration)
        let runs = scheduler.upcoming(from: from, to: end, limit: limit)
        let zone = configuration.house.timeZone.identifier
        var out = to == nil && limit != .max
            ? "Next \(limit) run\(limit == 1 ? "" : "s") after \(calendar.dateTimeText(from)) (\(zone)):\n"
            : "Runs from \(calendar.dateTimeText(from)) to \(calendar.dateTimeText(end)) (\(zone)):\n"
        if runs.isEmpty { out += "  (none)\n" }
        let idWidth = min(24, runs.map(\.routineID.rawValue.count).max() ?? 0)
        for run in runs {
            guard let routine = configuration.routine(id: run.routineID) else { continue }
            let weekday = String(calendar.localDate(of: run.due).weekdayName.prefix(3))
            var line = "  \(weekday) \(calendar.dateTimeText(run.due, zone: true))  "
            line += run.routineID.rawValue.padding(toLength: max(idWidth, run.routineID.rawValue.count), withPad: " ", startingAt: 0)
            line += "  \(describe(routine.intent))"
            var notes: [String] = []
            if let runAt = routine.runAt, case .sun = runAt { notes.append("at \(runAt)") }
            if case .afterDaylightSavingGap(let wanted) = run.reason {
                notes.append("\(wanted) does not exist that day (daylight saving): runs after the gap")
            }
            if let j = routine.jitter, j > .zero { notes.append("plus up to \(DurationParser.format(j)) random delay") }
            if !notes.isEmpty { line += "  (" + notes.joined(separator: "; ") + ")" }
            out += line + "\n"
        }
        let manual = configuration.routines.filter { $0.runAt == nil }.map(\.id)
        if !manual.isEmpty {
            out += "Shortcut-only routines (no run_at): \(manual.joined(separator: ", "))\n"
        }
        return out
    }

    /// A short text for an intent: `mode night for 1h`, `bedroom-light on`, `routine morning`.
    public static func describe(_ intent: IntentSpec) -> String {
        switch intent {
        case .mode(let mode, let duration, let rooms):
            var s = "mode \(mode)"
            if let duration { s += " for \(DurationParser.format(duration))" }
            if !rooms.isEmpty { s += " in \(rooms.joined(separator: ", "))" }
            return s
        case .control(let room, let device, let action):
            return [device ?? room?.rawValue ?? "house", action.rawValue].joined(separator: " ")
        case .routine(let id):
            return "routine \(id)"
        }
    }
}
