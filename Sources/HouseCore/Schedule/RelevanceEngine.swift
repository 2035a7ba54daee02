import Foundation

/// Which routine shortcuts are relevant at an instant, ranked, each with an explanation.
///
/// A shortcut is relevant inside its window (`relevant:`); inside, narrower windows rank higher.
/// Habit adds to the score: past uses of the routine, its phrase or its intent at a similar time
/// of day (within `habitRadius`), weighted by recency over `retention`, the way Siri suggestions
/// learn from donations; and a habit the household has now (`HabitFinder`'s, holding at this
/// time on this day, which the routine does), by the share of its days it was seen on. With
/// `includeHabitOnly`, habit alone can make a shortcut relevant outside its window.
public struct RelevanceEngine: Sendable {
    public let routines: [Routine]
    public let calendar: HouseCalendar
    public var options: RelevanceOptions

    public init(routines: [Routine], calendar: HouseCalendar, options: RelevanceOptions = RelevanceOptions()) {
        self.routines = routines
        self.calendar = calendar
        self.options = options
    }

    /// The engine for a configured house.
    public init(configuration: HouseConfiguration, options: RelevanceOptions = RelevanceOptions()) {
        self.init(routines: configuration.routines, calendar: HouseCalendar(house: configuration.house), options: options)
    }

    /// The relevant shortcuts at `now`, best first. `habits`: the habit holding now that each
    /// routine does (`HouseConfiguration.habitsHolding`).
    public func relevant(at now: Date, history: [UsageRecord] = [], habits: [RoutineID: Habit] = [:]) -> [RelevantShortcut] {
        let (today, minute) = calendar.localDateAndMinute(of: now)
        let nowText = "now \(today.weekdayName) \(TimeOfDay(hour: minute / 60, minute: minute % 60))"
        let retention = options.retention.scheduleSeconds
        let radius = Int(options.habitRadius.scheduleSeconds / 60)
        let recent = history.filter { $0.at <= now && now.timeIntervalSince($0.at) <= retention }
            .map { (record: $0, minute: calendar.localDateAndMinute(of: $0.at).minute) }

        var out: [RelevantShortcut] = []
        for routine in routines {
            let keys: Set<String> = [routine.id.rawValue.lowercased(), routine.shortcut.lowercased(),
                                     routine.intent.usageKey.lowercased()]
            var uses = 0
            var weight = 0.0
            for (record, m) in recent where keys.contains(record.subject.lowercased()) {
                let diff = abs(m - minute)
                guard min(diff, 1440 - diff) <= radius else { continue }
                uses += 1
                weight += retention > 0 ? max(0, 1 - now.timeIntervalSince(record.at) / retention) : 1
            }
            var habit = options.habitWeight * (1 - exp(-weight / 3))
            var habitText = uses == 0 ? "" :
                "; used \(uses) time\(uses == 1 ? "" : "s") near this time in the last \(DurationParser.format(options.retention))"
            if let found = habits[routine.id], case .timeOfDay(_, let days, _, _) = found.pattern {
                let e = found.evidence
                habit += options.habitWeight * Double(e.occurrences) / Double(max(1, e.outOf))
                uses += e.occurrences
                habitText += "; a habit: around \(e.medianTime?.description ?? "this time") \(days == .everyDay ? "every day" : "on \(days)"), \(e.countText)"
            }

            if let spec = routine.relevant, let window = calendar.window(spec, containing: now) {
                let specificity = 0.5 * (1 - min(window.duration, 86400) / 86400)
                out.append(RelevantShortcut(
                    routineID: routine.id, shortcut: routine.shortcut, score: 1 + specificity + habit,
                    window: window, habitUses: uses,
                    explanation: "relevant \(describe(window)); \(nowText)\(habitText)"))
            } else if options.includeHabitOnly, uses > 0 {
                let where_ = routine.relevant.map { "outside its window \(describe($0, on: today))" } ?? "no window"
                out.append(RelevantShortcut(
                    routineID: routine.id, shortcut: routine.shortcut, score: habit, window: nil, habitUses: uses,
                    explanation: "\(where_); \(nowText)\(habitText)"))
            }
        }
        return out.sorted { ($0.score, $1.routineID) > ($1.score, $0.routineID) }
    }

    /// "06:00-09:00 on weekdays", "sunset (16:02)-02:00 every day".
    func describe(_ window: TimeWindow) -> String {
        let from = edgeText(window.spec.from, at: window.start)
        let to = edgeText(window.spec.to, at: window.end)
        return "\(from)-\(to) \(daysText(window.spec.days))"
    }

    private func describe(_ spec: TimeWindowSpec, on day: LocalDate) -> String {
        if let w = calendar.window(spec, on: day).window { return describe(w) }
        return "\(spec.from)-\(spec.to) \(daysText(spec.days))"
    }

    private func edgeText(_ edge: TimeEdge, at instant: Date) -> String {
        switch edge {
        case .clock(let t): t.description
        case .sun: "\(edge) (\(calendar.clockText(instant)))"
        }
    }

    private func daysText(_ days: DaySet) -> String {
        days == .everyDay ? "every day" : "on \(days)"
    }
}
