import Foundation

/// The routine scheduler as a pure state machine: it knows the next run of every routine that
/// runs by itself, and hands out the runs that are due when told the time. It never reads a clock
/// or sleeps; `RoutineRunner` drives it from a `WallClock` (a `ManualClock` of HouseTesting in tests).
///
/// Rules it implements:
/// - A routine runs by itself only when it has a `runAt`. With a relevance window, it runs only on
///   the window's days and only when `runAt` falls inside that day's window (for a window crossing
///   midnight, a `runAt` before the window start is taken on the next day: `22:00-02:00` with
///   `run_at: 01:00` runs at 01:00 after each listed day, `22:00-09:00` with `run_at: sunrise` at
///   the next morning's sunrise). Without a window it runs every day.
/// - A window or `runAt` whose sun event does not happen that day (polar day or night) means no
///   run that day.
/// - Daylight saving: a `runAt` in a skipped hour runs at the end of the gap (`.runAfterGap`) or
///   not at all that day (`.skip`); in a repeated hour it runs once, at the first occurrence.
/// - Jitter: a random delay in `0...jitter` drawn from the injected generator when the run is
///   planned, cut so the run stays inside its window (and under 23 hours without one).
/// - Catch-up (`.latest`): at start, the latest run missed since `lastActive` runs once, now, if
///   its window is still open (without a window: always, once).
/// - Restarts: runs planned before a restart (`RoutineRunRecord`) keep their drawn delay; one that
///   fell due while the controller was down counts as missed; a run recorded done never runs again.
public struct RoutineScheduler<RNG: RandomNumberGenerator & Sendable>: Sendable {
    public let calendar: HouseCalendar
    /// The routines that run by themselves (those with a `runAt`).
    public let routines: [Routine]
    /// The random source for jitter.
    public private(set) var rng: RNG
    /// The next run of every routine that has one, earliest due first.
    public var pending: [ScheduledRun] { Array(queue[head...]) }
    /// The pending runs in due order from `head` on: taking the earliest moves `head` instead of
    /// shifting the array (a thousand routines made `removeFirst` two thirds of the scheduler's
    /// time); the taken ones are dropped in bulk now and then.
    private var queue: [ScheduledRun] = []
    private var head = 0

    /// How many days ahead (or back) to look for an occurrence; a polar sun event may be absent
    /// for months.
    public static var searchDays: Int { 400 }
    /// How far back the reconciled desired state looks for the latest mode routine.
    public static var desiredStateLookbackDays: Int { 8 }

    private let routineIndex: [RoutineID: Int]

    public init(routines: [Routine], calendar: HouseCalendar, rng: RNG) {
        self.calendar = calendar
        self.routines = routines.filter { $0.runAt != nil }
        self.rng = rng
        var index: [RoutineID: Int] = [:]
        for (i, r) in self.routines.enumerated() where index[r.id] == nil { index[r.id] = i }
        self.routineIndex = index
    }

    /// The routine with this id, if it runs by itself.
    public func routine(id: RoutineID) -> Routine? { routineIndex[id].map { routines[$0] } }

    /// When the earliest pending run is due.
    public var nextDue: Date? { head < queue.count ? queue[head].due : nil }

    // MARK: - Start

    /// Plans the next run of every routine strictly after `now`, and works out what the start owes:
    /// catch-up runs for routines missed since `lastActive` (the last instant the controller was
    /// known to run; nil on a first start) and the mode the routines say the house should be in.
    ///
    /// `records` are the runs recorded before a restart: a planned run still to come is taken
    /// back with its drawn delay (a restart during a routine's random delay does not lose that
    /// day's run); one that fell due while the controller was down is a missed run; a run recorded
    /// done is never caught up.
    public mutating func start(at now: Date, lastActive: Date?, records: [RoutineRunRecord] = []) -> SchedulerStart {
        queue = []
        head = 0
        let done = Set(records.filter(\.done).map(\.key))
        // A run recorded planned here and done elsewhere (another node ran it) is done.
        let records = records.filter { $0.done || !done.contains($0.key) }
        var missedPlanned: [RoutineID: ScheduledRun] = [:]
        for routine in routines {
            if let planned = plannedRun(of: routine, in: records) {
                if planned.due > now {
                    insert(planned)
                    continue
                }
                missedPlanned[routine.id] = planned
            }
            if var run = nextOccurrence(of: routine, after: now) {
                applyJitter(&run, routine: routine)
                insert(run)
            }
        }
        let planned = Set(queue[head...].map(\.key))
        var catchUp: [ScheduledRun] = []
        for routine in routines where routine.catchUp == .latest {
            var candidates = missedPlanned[routine.id].map { [$0] } ?? []
            if let lastActive, lastActive < now,
               let missed = latestOccurrence(of: routine, atOrBefore: now, after: lastActive) {
                candidates.append(missed)
            }
            guard let missed = candidates.filter({ !done.contains($0.key) && !planned.contains($0.key) })
                .max(by: { $0.nominal < $1.nominal }) else { continue }
            if let w = missed.window, !w.contains(now) { continue }
            catchUp.append(ScheduledRun(routineID: routine.id, day: missed.day, nominal: missed.nominal, due: now,
                                        window: missed.window, reason: .catchUp(missed: missed.nominal)))
        }
        catchUp.sort { ($0.nominal, $0.routineID) < ($1.nominal, $1.routineID) }
        return SchedulerStart(catchUp: catchUp, desiredState: desiredState(at: now))
    }

    /// The latest run of `routine` recorded as planned and not done, if the routine still has
    /// that occurrence (its configuration may have changed since), with its recorded delay.
    private func plannedRun(of routine: Routine, in records: [RoutineRunRecord]) -> ScheduledRun? {
        records.filter { !$0.done && $0.routineID == routine.id }
            .compactMap { record -> ScheduledRun? in
                guard var run = occurrence(of: routine, on: record.day), run.key == record.key else { return nil }
                run.due = record.due
                return run
            }
            .max { $0.nominal < $1.nominal }
    }

    // MARK: - Running

    /// Removes and returns every pending run due at or before `now`, in due order, and plans the
    /// following run of each routine.
    ///
    /// A run more than `lateTolerance` late was missed (the machine slept, or the clock jumped
    /// forward): it follows the routine's catch-up policy like downtime does. With `.latest`, the
    /// latest missed run of the routine runs once, now, if its window is still open; otherwise
    /// missed runs are dropped.
    public mutating func takeDue(at now: Date, lateTolerance: Duration = .seconds(60)) -> [ScheduledRun] {
        var due: [ScheduledRun] = []
        var missed: [RoutineID: ScheduledRun] = [:]
        let tolerance = lateTolerance.scheduleSeconds
        while head < queue.count, queue[head].due <= now {
            let first = queue[head]
            head += 1
            if now.timeIntervalSince(first.due) <= tolerance {
                due.append(first)
            } else {
                missed[first.routineID] = first
            }
            if let routine = routine(id: first.routineID),
               var next = nextOccurrence(of: routine, after: first.nominal, fromDay: first.day.adding(days: 1)) {
                applyJitter(&next, routine: routine)
                insert(next)
            }
        }
        for run in missed.values.sorted(by: { ($0.nominal, $0.routineID) < ($1.nominal, $1.routineID) }) {
            guard routine(id: run.routineID)?.catchUp == .latest, run.window?.contains(now) ?? true else { continue }
            due.append(ScheduledRun(routineID: run.routineID, day: run.day, nominal: run.nominal, due: now,
                                    window: run.window, reason: .catchUp(missed: run.nominal)))
        }
        return due
    }

    /// The runs between `from` (excluded) and `to` (included), at most `limit`, computed on a
    /// copy of this scheduler started at `from` (no catch-up); for previews such as
    /// `housectl routines`.
    public func upcoming(from: Date, to: Date, limit: Int = .max) -> [ScheduledRun] {
        var copy = self
        _ = copy.start(at: from, lastActive: nil)
        var out: [ScheduledRun] = []
        while out.count < limit, let next = copy.nextDue, next <= to {
            for run in copy.takeDue(at: next) where out.count < limit { out.append(run) }
        }
        return out
    }

    // MARK: - Occurrences (no jitter)

    /// The planned run of `routine` for local day `day` before jitter, or nil when it does not run
    /// that day.
    public func occurrence(of routine: Routine, on day: LocalDate) -> ScheduledRun? {
        guard let runAt = routine.runAt else { return nil }
        var window: TimeWindow? = nil
        if let spec = routine.relevant {
            guard let w = calendar.window(spec, on: day).window else { return nil }
            window = w
        }
        guard let resolved = resolveRunAt(runAt, on: day, policy: routine.daylightSaving) else { return nil }
        var (nominal, reason) = resolved
        if let w = window {
            if nominal < w.start,
               let next = resolveRunAt(runAt, on: day.adding(days: 1), policy: routine.daylightSaving) {
                (nominal, reason) = next
            }
            guard w.contains(nominal) else { return nil }
        }
        return ScheduledRun(routineID: routine.id, day: day, nominal: nominal, due: nominal, window: window, reason: reason)
    }

    /// The first occurrence of `routine` whose nominal instant is strictly after `instant`.
    public func nextOccurrence(of routine: Routine, after instant: Date) -> ScheduledRun? {
        nextOccurrence(of: routine, after: instant, fromDay: calendar.localDate(of: instant).adding(days: -1))
    }

    /// The first occurrence strictly after `instant` on `fromDay` or a later day (after a run of
    /// day D, the next one belongs to D+1 or later: one day to look at instead of three).
    func nextOccurrence(of routine: Routine, after instant: Date, fromDay: LocalDate) -> ScheduledRun? {
        for offset in 0...(Self.searchDays + 1) {
            if let run = occurrence(of: routine, on: fromDay.adding(days: offset)), run.nominal > instant { return run }
        }
        return nil
    }

    /// The latest occurrence of `routine` with nominal instant in `(after, atOrBefore]`.
    public func latestOccurrence(of routine: Routine, atOrBefore instant: Date, after: Date) -> ScheduledRun? {
        let today = calendar.localDate(of: instant)
        let earliest = max(calendar.localDate(of: after).adding(days: -1), today.adding(days: -Self.searchDays))
        var day = today.adding(days: 1)
        while day >= earliest {
            if let run = occurrence(of: routine, on: day), run.nominal <= instant, run.nominal > after { return run }
            day = day.adding(days: -1)
        }
        return nil
    }

    // MARK: - Desired state

    /// The mode the routines say the house should be in at `now`: the mode of the latest mode
    /// routine whose nominal run has passed (looking back `desiredStateLookbackDays`) and whose
    /// relevance window, if it has one, is still open, with a
    /// mode set for a duration on top while that duration lasts. Modes limited to rooms do not say
    /// what the house is in and are left out. Jitter is ignored (nominal times). Nil when no mode
    /// routine ran.
    public func desiredState(at now: Date) -> DesiredState? {
        let lookback = now.addingTimeInterval(-Double(Self.desiredStateLookbackDays) * 86400)
        var base: (run: ScheduledRun, mode: ModeID)? = nil
        var timed: (run: ScheduledRun, mode: ModeID, until: Date)? = nil
        for routine in routines {
            guard case .mode(let mode, let duration, let rooms) = routine.intent, rooms.isEmpty,
                  let run = latestOccurrence(of: routine, atOrBefore: now, after: lookback) else { continue }
            // A routine with a relevance window has a say only while that window is open: the
            // morning routine does not put the house back in morning mode at night.
            if let window = run.window, now >= window.end { continue }
            if let duration {
                let until = run.nominal.addingTimeInterval(duration.scheduleSeconds)
                if until > now, timed.map({ run.nominal > $0.run.nominal }) ?? true { timed = (run, mode, until) }
            } else if base.map({ run.nominal > $0.run.nominal }) ?? true {
                base = (run, mode)
            }
        }
        if let t = timed, base.map({ t.run.nominal > $0.run.nominal }) ?? true {
            return DesiredState(mode: t.mode, routineID: t.run.routineID, since: t.run.nominal, revertsAt: t.until,
                                revertsTo: base?.mode)
        }
        guard let b = base else { return nil }
        return DesiredState(mode: b.mode, routineID: b.run.routineID, since: b.run.nominal, revertsAt: nil, revertsTo: nil)
    }

    // MARK: - Helpers

    private func resolveRunAt(_ edge: TimeEdge, on day: LocalDate, policy: DaylightSavingPolicy) -> (Date, RunReason)? {
        switch edge {
        case .clock(let time):
            switch calendar.resolve(time, on: day) {
            case .unique(let d): return (d, .scheduled)
            case .repeated(let first, _): return (first, .scheduled)
            case .skipped(let gapEnd):
                return policy == .runAfterGap ? (gapEnd, .afterDaylightSavingGap(wanted: time)) : nil
            }
        case .sun:
            if case .success(let d) = calendar.instant(of: edge, on: day) { return (d, .scheduled) }
            return nil
        }
    }

    private mutating func applyJitter(_ run: inout ScheduledRun, routine: Routine) {
        guard let jitter = routine.jitter, jitter > .zero else { return }
        var maxDelay = min(jitter.scheduleSeconds, 23 * 3600)
        if let w = run.window { maxDelay = min(maxDelay, w.end.timeIntervalSince(run.nominal) - 1) }
        guard maxDelay >= 1 else { return }
        let delay = Double.random(in: 0...maxDelay, using: &rng).rounded(.down)
        run.due = run.nominal.addingTimeInterval(delay)
    }

    private mutating func insert(_ run: ScheduledRun) {
        if head > 256 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        var lo = head, hi = queue.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if queue[mid].due <= run.due { lo = mid + 1 } else { hi = mid }
        }
        queue.insert(run, at: lo)
    }
}

extension RoutineScheduler where RNG == SystemRandomNumberGenerator {
    /// A scheduler for a configured house, with the system random source for jitter.
    public init(configuration: HouseConfiguration) {
        self.init(routines: configuration.routines, calendar: HouseCalendar(house: configuration.house),
                  rng: SystemRandomNumberGenerator())
    }
}

extension RoutineScheduler where RNG == SeededJitterGenerator {
    /// A scheduler of the nominal runs of a configured house: no random delay drawn (it is shown
    /// as a bound, by `housectl routines` and the day's picture).
    public init(nominal configuration: HouseConfiguration) {
        let routines = configuration.routines.map { r -> Routine in
            var copy = r
            copy.jitter = nil
            return copy
        }
        self.init(routines: routines, calendar: HouseCalendar(house: configuration.house), rng: SeededJitterGenerator(seed: 0))
    }
}
