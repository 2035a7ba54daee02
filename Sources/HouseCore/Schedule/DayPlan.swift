import Foundation

/// One local day of the house's schedule, as the "Today" picture draws it: when each shortcut is
/// relevant, the routine runs planned (with the band their random delay may push them into), the
/// sun, the modes over the day, and what actually ran. Pure: computed from the configuration,
/// the mode timelines and the run records it is given.
public struct DayPlan: Sendable, Equatable {
    /// A shortcut's relevance window, cut to the day.
    public struct Window: Sendable, Equatable {
        public var routine: RoutineID
        public var shortcut: String
        public var start: Date
        public var end: Date
    }

    /// A routine's planned run: at `nominal`, or up to `latest` with its random delay.
    public struct Run: Sendable, Equatable {
        public var routine: RoutineID
        public var shortcut: String
        /// What it does, in a few words (`mode night`, `kitchen-light on`).
        public var action: String
        public var nominal: Date
        public var latest: Date
    }

    /// A sun event of the day.
    public struct SunMark: Sendable, Equatable {
        public var event: SunEvent
        public var at: Date
    }

    /// A mode over part of the day: planned by the routines, or set now (a room's timeline).
    public struct ModeSpan: Sendable, Equatable {
        public var mode: ModeID
        /// The rooms it is for; empty for the whole house.
        public var rooms: [RoomID]
        public var start: Date
        public var end: Date
        /// When the mode was set: before `start` for a mode carried over from an earlier day (or
        /// one the house returns to when a temporary mode ends).
        public var since: Date
        /// A temporary mode (it ends by itself).
        public var timed: Bool
        /// True when the routines plan it; false when it is in the house's timelines now.
        public var planned: Bool
    }

    /// Something that ran that day (a routine's run, from the records).
    public struct Ran: Sendable, Equatable {
        public var routine: RoutineID
        public var at: Date

        public init(routine: RoutineID, at: Date) {
            self.routine = routine
            self.at = at
        }
    }

    public var day: LocalDate
    /// The day's first instant and the next day's (23 or 25 hours apart on a clock change).
    public var start: Date
    public var end: Date
    public var windows: [Window]
    public var runs: [Run]
    public var sun: [SunMark]
    public var modes: [ModeSpan]
    public var ran: [Ran]

    /// The plan of `day` in the house's zone.
    /// - Parameters:
    ///   - timelines: each room's mode timeline now (its timed layers are drawn over the day).
    ///   - ran: the runs that happened that day.
    public init(_ configuration: HouseConfiguration, day: LocalDate, timelines: [RoomID: ModeTimeline] = [:], ran: [Ran] = []) {
        let calendar = HouseCalendar(house: configuration.house)
        let start = calendar.start(of: day)
        let end = calendar.start(of: day.adding(days: 1))
        self.day = day
        self.start = start
        self.end = end
        self.ran = ran.filter { $0.at >= start && $0.at < end }.sorted { $0.at < $1.at }

        var windows: [Window] = []
        for routine in configuration.routines {
            guard let spec = routine.relevant else { continue }
            // A window from the day before may cross midnight into this day.
            for d in [day.adding(days: -1), day] {
                guard let w = calendar.window(spec, on: d).window else { continue }
                let s = max(w.start, start), e = min(w.end, end)
                if s < e { windows.append(Window(routine: routine.id, shortcut: routine.shortcut, start: s, end: e)) }
            }
        }
        self.windows = windows

        // The nominal runs (the delay is a band, not drawn), from a week back for the mode in
        // effect at midnight.
        let scheduler = RoutineScheduler(nominal: configuration)
        let all = scheduler.upcoming(from: start.addingTimeInterval(-7 * 86400), to: end.addingTimeInterval(-0.001))
        runs = all.filter { $0.due >= start }.compactMap { run in
            guard let routine = configuration.routine(id: run.routineID) else { return nil }
            let delay = routine.jitter.map { Double($0.components.seconds) } ?? 0
            return Run(routine: routine.id, shortcut: routine.shortcut, action: ScheduleReport.describe(routine.intent),
                       nominal: run.due, latest: run.due.addingTimeInterval(delay))
        }

        sun = [SunEvent.dawn, .sunrise, .sunset, .dusk].compactMap { event in
            calendar.sun.occurrence(of: event, on: day).date.map { SunMark(event: event, at: $0) }
        }

        // Planned modes: the house's timeline replayed over the runs that set a mode for the
        // whole house, from a week back: each run starts a span, and the mode in effect at
        // midnight is carried over from the last change before it.
        var spans = Self.houseModes(all, configuration: configuration, from: start, to: end)
        // A mode for some rooms, from its run: for its duration, or until the day's end.
        for run in all {
            guard let routine = configuration.routine(id: run.routineID), case .mode(let mode, let duration, let rooms) = routine.intent,
                  !rooms.isEmpty else { continue }
            let until = duration.map { run.due.addingTimeInterval($0.scheduleSeconds) } ?? end
            guard until > start, duration != nil || run.due >= start else { continue }
            spans.append(ModeSpan(mode: mode, rooms: rooms, start: max(start, run.due), end: min(end, until), since: run.due,
                                  timed: duration != nil, planned: true))
        }
        // The timed modes set now, one span per layer (rooms with the same layer together).
        var layers: [ModeTimeline.Layer: [RoomID]] = [:]
        for (room, timeline) in timelines {
            for layer in timeline.layers where layer.until > start && layer.since < end { layers[layer, default: []].append(room) }
        }
        let allRooms = Set(configuration.rooms.map(\.id))
        for (layer, rooms) in layers {
            let named = Set(rooms) == allRooms ? [] : rooms.sorted { $0.rawValue < $1.rawValue }
            spans.append(ModeSpan(mode: layer.mode, rooms: named, start: max(start, layer.since), end: min(end, layer.until),
                                  since: layer.since, timed: true, planned: false))
        }
        modes = spans.sorted { ($0.start, $0.mode.rawValue) < ($1.start, $1.mode.rawValue) }
    }

    /// The modes the routines put the whole house in between `from` and `to`, as the house's
    /// `ModeTimeline` has them: a mode without a duration until the next mode, a temporary one
    /// until it ends (back to the mode below) or a mode without a duration cancels it. A span
    /// starts at every run (the same mode set again shows where it was set), and at every end of
    /// a temporary mode that changes the mode in effect.
    /// - Parameter runs: the nominal runs, in order, from far enough back for the mode at `from`.
    static func houseModes(_ runs: [ScheduledRun], configuration: HouseConfiguration, from: Date, to: Date) -> [ModeSpan] {
        var timeline = ModeTimeline()
        var baseSince = from
        var spans: [ModeSpan] = []
        // The mode in effect: drawn from `start`, set at `since`.
        var open: (mode: ModeID, start: Date, since: Date, timed: Bool)? = nil
        func settle(at instant: Date, always: Bool) {
            let now = timeline.current.map { (mode: $0, since: timeline.layers.last?.since ?? baseSince, timed: !timeline.layers.isEmpty) }
            if !always, open?.mode == now?.mode, open?.since == now?.since, open?.timed == now?.timed { return }
            if let o = open, max(from, o.start) < min(to, instant) {
                spans.append(ModeSpan(mode: o.mode, rooms: [], start: max(from, o.start), end: min(to, instant), since: o.since,
                                      timed: o.timed, planned: true))
            }
            open = now.map { (mode: $0.mode, start: instant, since: $0.since, timed: $0.timed) }
        }
        // Ends the temporary modes that end up to `instant`, one end at a time.
        func expire(upTo instant: Date) {
            while let end = timeline.nextExpiry, end <= instant {
                _ = timeline.expire(at: end)
                settle(at: end, always: false)
            }
        }
        for run in runs {
            guard let routine = configuration.routine(id: run.routineID), case .mode(let mode, let duration, let rooms) = routine.intent,
                  rooms.isEmpty else { continue }
            expire(upTo: run.due)
            timeline.set(mode, duration: duration, at: run.due)
            if duration == nil { baseSince = run.due }
            settle(at: run.due, always: true)
        }
        expire(upTo: to)
        settle(at: to, always: true)
        return spans
    }
}
