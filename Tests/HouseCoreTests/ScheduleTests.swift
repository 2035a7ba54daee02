import Foundation
import Testing
@testable import HouseCore

@Suite struct ScheduleTests {
    func scheduler(_ cal: HouseCalendar, _ routines: [Routine], seed: UInt64 = 1) -> RoutineScheduler<SeededJitterGenerator> {
        RoutineScheduler(routines: routines, calendar: cal, rng: SeededJitterGenerator(seed: seed))
    }

    func routine(_ id: RoutineID, runAt: String, window: TimeWindowSpec? = nil, jitter: Duration? = nil,
                 catchUp: CatchUpPolicy = .none, dst: DaylightSavingPolicy = .runAfterGap,
                 intent: IntentSpec? = nil) -> Routine {
        Routine(id: id, shortcut: "\(id) shortcut", relevant: window, runAt: schedEdge(runAt), jitter: jitter,
                catchUp: catchUp, daylightSaving: dst, intent: intent ?? .routine(id))
    }

    // MARK: - Daylight saving, 2026

    struct DSTCase: Sendable, CustomStringConvertible {
        let zone: String
        let skippedDay: String
        let repeatedDay: String
        /// Local time inside the skipped hour, and the UTC instant of the gap end.
        let skippedTime: String
        let gapEnd: String
        /// Local time inside the repeated hour and the UTC instant of its first occurrence.
        let repeatedTime: String
        let firstOccurrence: String
        var description: String { zone }
    }

    static let dstCases = [
        DSTCase(zone: "london", skippedDay: "2026-03-29", repeatedDay: "2026-10-25",
                skippedTime: "01:30", gapEnd: "2026-03-29T01:00:00Z",
                repeatedTime: "01:30", firstOccurrence: "2026-10-25T00:30:00Z"),
        DSTCase(zone: "newYork", skippedDay: "2026-03-08", repeatedDay: "2026-11-01",
                skippedTime: "02:30", gapEnd: "2026-03-08T07:00:00Z",
                repeatedTime: "01:30", firstOccurrence: "2026-11-01T05:30:00Z"),
        // Southern hemisphere: clocks go back in April and forward in October.
        DSTCase(zone: "sydney", skippedDay: "2026-10-04", repeatedDay: "2026-04-05",
                skippedTime: "02:30", gapEnd: "2026-10-03T16:00:00Z",
                repeatedTime: "02:30", firstOccurrence: "2026-04-04T15:30:00Z"),
    ]

    static func cal(_ zone: String) -> HouseCalendar {
        switch zone {
        case "london": SchedulePlace.london
        case "newYork": SchedulePlace.newYork
        default: SchedulePlace.sydney
        }
    }

    @Test(arguments: dstCases)
    func skippedHourRunsAfterTheGap(_ c: DSTCase) {
        let cal = Self.cal(c.zone)
        let s = scheduler(cal, [routine("r", runAt: c.skippedTime, dst: .runAfterGap)])
        let d = schedDay(c.skippedDay)
        let runs = s.upcoming(from: cal.at("\(d.adding(days: -1)) 12:00"), to: cal.at("\(d.adding(days: 1)) 12:00"))
        #expect(runs.map(\.due) == [cal.resolve(schedTime(c.skippedTime), on: d.adding(days: -1)).earliest,
                                   schedUTC(c.gapEnd),
                                   cal.resolve(schedTime(c.skippedTime), on: d.adding(days: 1)).earliest].filter {
            $0 > cal.at("\(d.adding(days: -1)) 12:00")
        })
        let onDay = runs.filter { $0.day == d }
        #expect(onDay.count == 1)
        #expect(onDay.first?.due == schedUTC(c.gapEnd))
        #expect(onDay.first?.reason == .afterDaylightSavingGap(wanted: schedTime(c.skippedTime)))
    }

    @Test(arguments: dstCases)
    func skippedHourIsSkippedWithSkipPolicy(_ c: DSTCase) {
        let cal = Self.cal(c.zone)
        let s = scheduler(cal, [routine("r", runAt: c.skippedTime, dst: .skip)])
        let d = schedDay(c.skippedDay)
        let runs = s.upcoming(from: cal.at("\(d.adding(days: -1)) 12:00"), to: cal.at("\(d.adding(days: 2)) 00:00"))
        #expect(runs.map(\.day) == [d.adding(days: 1)])
        #expect(runs.first?.due == cal.resolve(schedTime(c.skippedTime), on: d.adding(days: 1)).earliest)
    }

    @Test(arguments: dstCases)
    func repeatedHourRunsOnce(_ c: DSTCase) {
        let cal = Self.cal(c.zone)
        let d = schedDay(c.repeatedDay)
        for policy in DaylightSavingPolicy.allCases {
            let s = scheduler(cal, [routine("r", runAt: c.repeatedTime, dst: policy)])
            let runs = s.upcoming(from: cal.at("\(d.adding(days: -1)) 12:00"), to: cal.at("\(d.adding(days: 1)) 00:00"))
            #expect(runs.map(\.due) == [schedUTC(c.firstOccurrence)], "policy \(policy)")
            #expect(runs.first?.reason == .scheduled)
        }
    }

    @Test(arguments: dstCases)
    func runnerStepsThroughBothChangesWithoutDoubleOrMissedRuns(_ c: DSTCase) {
        // A routine every day at a time that is in neither changed hour keeps one run per local day.
        let cal = Self.cal(c.zone)
        let s = scheduler(cal, [routine("r", runAt: "07:00")])
        let runs = s.upcoming(from: cal.at("2026-01-01 00:00"), to: cal.at("2027-01-01 00:00"))
        #expect(runs.count == 365)
        #expect(Set(runs.map(\.day)).count == 365)
        #expect(runs.allSatisfy { cal.clockText($0.due) == "07:00" })
    }

    // MARK: - Windows and runAt

    @Test func runAtInsideAMidnightCrossingWindowRunsAfterMidnight() {
        let cal = SchedulePlace.london
        let spec = TimeWindowSpec(from: schedEdge("22:00"), to: schedEdge("02:00"), days: DaySet(weekdays: [6])) // Fridays
        let s = scheduler(cal, [routine("late", runAt: "01:00", window: spec)])
        let runs = s.upcoming(from: cal.at("2026-11-23 00:00"), to: cal.at("2026-12-07 00:00"))
        #expect(runs.map(\.due) == [cal.at("2026-11-28 01:00"), cal.at("2026-12-05 01:00")])
        #expect(runs.map(\.day) == [schedDay("2026-11-27"), schedDay("2026-12-04")])
    }

    @Test func runAtOutsideItsWindowDoesNotRunThatDay() {
        let cal = SchedulePlace.london
        // Sunset in London is after 18:00 in June but before it in December.
        let spec = TimeWindowSpec(from: schedEdge("sunset"), to: schedEdge("23:00"))
        let s = scheduler(cal, [routine("evening", runAt: "18:00", window: spec)])
        #expect(s.upcoming(from: cal.at("2026-06-20 00:00"), to: cal.at("2026-06-23 00:00")).isEmpty)
        #expect(s.upcoming(from: cal.at("2026-12-20 00:00"), to: cal.at("2026-12-23 00:00")).count == 3)
    }

    @Test func sunRunAtWithOffsetFiresEveryDayAndSkipsPolarDays() throws {
        let london = scheduler(SchedulePlace.london, [routine("lights", runAt: "sunset-15m")])
        let runs = london.upcoming(from: SchedulePlace.london.at("2026-11-23 00:00"), to: SchedulePlace.london.at("2026-11-30 00:00"))
        #expect(runs.count == 7)
        let sunset = try #require(SchedulePlace.london.occurrence(of: .sunset, on: schedDay("2026-11-23")).date)
        #expect(runs.first?.due == sunset.addingTimeInterval(-900))

        // In Tromsø the sun does not set from late May to late July: the next run after the
        // solstice is in late July.
        let tromso = scheduler(SchedulePlace.tromso, [routine("lights", runAt: "sunset")])
        let next = try #require(tromso.nextOccurrence(of: tromso.routines[0], after: SchedulePlace.tromso.at("2026-06-21 12:00")))
        #expect(next.day > schedDay("2026-07-20") && next.day < schedDay("2026-07-31"))
    }

    // MARK: - Jitter

    @Test func jitterStaysInsideItsWindow() {
        let cal = SchedulePlace.london
        let spec = TimeWindowSpec(from: schedEdge("18:00"), to: schedEdge("18:20"))
        let r = routine("presence", runAt: "18:10", window: spec, jitter: .seconds(3600))
        for seed in UInt64(1)...20 {
            let runs = scheduler(cal, [r], seed: seed).upcoming(from: cal.at("2026-11-01 00:00"), to: cal.at("2026-12-01 00:00"))
            #expect(runs.count == 30)
            for run in runs {
                let w = try! #require(run.window)
                #expect(w.contains(run.due))
                #expect(run.due >= run.nominal)
                #expect(run.due.timeIntervalSince(run.nominal) < 600)
            }
        }
    }

    @Test func jitterIsRandomAndBoundedWithoutAWindow() {
        let cal = SchedulePlace.london
        let r = routine("presence", runAt: "20:00", jitter: .seconds(1800))
        let runs = scheduler(cal, [r], seed: 7).upcoming(from: cal.at("2026-11-01 00:00"), to: cal.at("2026-12-01 00:00"))
        let delays = runs.map { $0.due.timeIntervalSince($0.nominal) }
        #expect(delays.allSatisfy { $0 >= 0 && $0 <= 1800 })
        #expect(Set(delays).count > 10) // really random, not a constant offset
    }

    // MARK: - Catch-up

    @Test func catchUpLatestRunsTheLatestMissedRunOnceWhileItsWindowIsOpen() {
        let cal = SchedulePlace.london
        let window = TimeWindowSpec(from: schedEdge("06:00"), to: schedEdge("09:00"), days: .weekdaysOnly)
        let morning = routine("morning", runAt: "06:30", window: window, catchUp: .latest)
        let none = routine("other", runAt: "06:45", window: window, catchUp: .none)
        var s = scheduler(cal, [morning, none])
        // Down from Friday 20:00 to Tuesday 07:10: Monday's and Tuesday's 06:30 were missed.
        let start = s.start(at: cal.at("2026-11-24 07:10"), lastActive: cal.at("2026-11-20 20:00"))
        #expect(start.catchUp.count == 1)
        #expect(start.catchUp.first?.routineID == "morning")
        #expect(start.catchUp.first?.nominal == cal.at("2026-11-24 06:30"))
        #expect(start.catchUp.first?.due == cal.at("2026-11-24 07:10"))
        #expect(start.catchUp.first?.reason == .catchUp(missed: cal.at("2026-11-24 06:30")))
        // Next regular runs are Wednesday's.
        #expect(s.pending.map(\.due) == [cal.at("2026-11-25 06:30"), cal.at("2026-11-25 06:45")])
    }

    @Test func catchUpDoesNothingOnceTheWindowHasClosed() {
        let cal = SchedulePlace.london
        let window = TimeWindowSpec(from: schedEdge("06:00"), to: schedEdge("09:00"))
        var s = scheduler(cal, [routine("morning", runAt: "06:30", window: window, catchUp: .latest)])
        let late = s.start(at: cal.at("2026-11-24 09:30"), lastActive: cal.at("2026-11-24 05:00"))
        #expect(late.catchUp.isEmpty)
        // Not missed at all: the controller was up at 06:30.
        let fine = s.start(at: cal.at("2026-11-24 07:00"), lastActive: cal.at("2026-11-24 06:50"))
        #expect(fine.catchUp.isEmpty)
        // First start ever: nothing to catch up.
        #expect(s.start(at: cal.at("2026-11-24 07:00"), lastActive: nil).catchUp.isEmpty)
    }

    // MARK: - Restarts (recorded runs)

    /// Stopped at 06:40 while the 06:30 run waited for its random delay (drawn to 06:52), back at
    /// 06:45: the run comes at 06:52 as drawn, not a second draw, not lost, not caught up twice.
    @Test func aRestartDuringTheRandomDelayKeepsTheDrawnRun() {
        let cal = SchedulePlace.london
        let window = TimeWindowSpec(from: schedEdge("06:00"), to: schedEdge("09:00"))
        for policy in CatchUpPolicy.allCases {
            var s = scheduler(cal, [routine("morning", runAt: "06:30", window: window, jitter: .seconds(1800), catchUp: policy)])
            let drawn = RoutineRunRecord(routineID: "morning", day: cal.localDate(of: cal.at("2026-11-24 06:30")),
                                         nominal: cal.at("2026-11-24 06:30"), due: cal.at("2026-11-24 06:52"), done: false)
            let start = s.start(at: cal.at("2026-11-24 06:45"), lastActive: cal.at("2026-11-24 06:29"), records: [drawn])
            #expect(start.catchUp.isEmpty, "\(policy): the planned run is still to come")
            #expect(s.pending.map(\.due) == [cal.at("2026-11-24 06:52")], "\(policy)")
            #expect(s.takeDue(at: cal.at("2026-11-24 06:52")).map(\.key) == [drawn.key])
            #expect(s.pending.first.map { cal.localDate(of: $0.nominal) } == cal.localDate(of: cal.at("2026-11-25 06:30")))
        }
    }

    /// A planned run whose time came while the controller was down is a missed run: caught up
    /// with `latest` while its window is open, dropped with `none`; a done run never again.
    @Test func recordedRunsFollowTheCatchUpPolicyAndDoneRunsNeverRepeat() {
        let cal = SchedulePlace.london
        let window = TimeWindowSpec(from: schedEdge("06:00"), to: schedEdge("09:00"))
        let day = cal.localDate(of: cal.at("2026-11-24 06:30"))
        let planned = RoutineRunRecord(routineID: "morning", day: day, nominal: cal.at("2026-11-24 06:30"),
                                       due: cal.at("2026-11-24 06:52"), done: false)
        var latest = scheduler(cal, [routine("morning", runAt: "06:30", window: window, jitter: .seconds(1800), catchUp: .latest)])
        // lastActive 06:40 is after the nominal 06:30: only the record says the run was missed.
        let caught = latest.start(at: cal.at("2026-11-24 07:30"), lastActive: cal.at("2026-11-24 06:40"), records: [planned])
        #expect(caught.catchUp.map(\.key) == [planned.key])
        var none = scheduler(cal, [routine("morning", runAt: "06:30", window: window, jitter: .seconds(1800), catchUp: .none)])
        #expect(none.start(at: cal.at("2026-11-24 07:30"), lastActive: cal.at("2026-11-24 06:40"), records: [planned]).catchUp.isEmpty)
        var done = planned
        done.done = true
        let again = latest.start(at: cal.at("2026-11-24 07:30"), lastActive: cal.at("2026-11-24 06:00"), records: [done])
        #expect(again.catchUp.isEmpty, "the run is recorded done, though lastActive is before it")
        // A record the configuration no longer has (run_at moved) is ignored: a fresh draw.
        var moved = scheduler(cal, [routine("morning", runAt: "06:35", window: window, catchUp: .latest)])
        let fresh = moved.start(at: cal.at("2026-11-24 06:20"), lastActive: cal.at("2026-11-24 06:10"), records: [planned])
        #expect(fresh.catchUp.isEmpty)
        #expect(moved.pending.map(\.due) == [cal.at("2026-11-24 06:35")])
    }

    @Test func catchUpAcrossMidnightWindow() {
        let cal = SchedulePlace.london
        let window = TimeWindowSpec(from: schedEdge("22:00"), to: schedEdge("02:00"))
        var s = scheduler(cal, [routine("night", runAt: "23:00", window: window, catchUp: .latest)])
        let start = s.start(at: cal.at("2026-11-25 01:00"), lastActive: cal.at("2026-11-24 21:00"))
        #expect(start.catchUp.map(\.nominal) == [cal.at("2026-11-24 23:00")])
    }

    // MARK: - Desired state

    @Test func desiredStateIsTheLatestModeRoutineThatRan() {
        let cal = SchedulePlace.london
        let morning = routine("morning", runAt: "06:30", window: TimeWindowSpec(from: schedEdge("06:00"), to: schedEdge("09:00")),
                              intent: .mode("morning", duration: nil, rooms: []))
        let night = routine("night", runAt: "23:00", intent: .mode("night", duration: nil, rooms: []))
        let movie = routine("movie", runAt: "20:00", intent: .mode("movie", duration: .seconds(7200), rooms: []))
        let light = routine("light", runAt: "07:00", intent: .control(room: nil, device: "hall-light", action: .on))
        let s = scheduler(cal, [morning, night, movie, light])
        // Inside its window the morning routine has its say over the night before.
        #expect(s.desiredState(at: cal.at("2026-11-24 08:00"))?.mode == "morning")
        // Once its window closed it has none: the night routine (no window) is the latest that counts.
        #expect(s.desiredState(at: cal.at("2026-11-24 10:00"))?.mode == "night")
        #expect(s.desiredState(at: cal.at("2026-11-24 03:00"))?.mode == "night")
        let duringMovie = s.desiredState(at: cal.at("2026-11-24 21:00"))
        #expect(duringMovie?.mode == "movie")
        #expect(duringMovie?.revertsAt == cal.at("2026-11-24 22:00"))
        #expect(duringMovie?.revertsTo == "night")
        #expect(s.desiredState(at: cal.at("2026-11-24 22:30"))?.mode == "night")
        // A windowed routine alone says nothing outside its window.
        #expect(scheduler(cal, [morning]).desiredState(at: cal.at("2026-11-26 02:00")) == nil)
        #expect(scheduler(cal, [light]).desiredState(at: cal.at("2026-11-24 10:00")) == nil)
    }
}

extension ScheduleTests {
    @Test func lateRunsAreTreatedAsMissed() {
        let cal = SchedulePlace.london
        let window = TimeWindowSpec(from: schedEdge("06:00"), to: schedEdge("09:00"))
        var s = scheduler(cal, [
            routine("a", runAt: "06:30", window: window, catchUp: .latest),
            routine("b", runAt: "06:30", window: window, catchUp: .none),
            routine("c", runAt: "06:30", catchUp: .latest),
        ])
        _ = s.start(at: cal.at("2026-11-20 12:00"), lastActive: nil)
        // Within the tolerance: on time.
        var t = s
        #expect(t.takeDue(at: cal.at("2026-11-21 06:30").addingTimeInterval(30)).map(\.reason) == [.scheduled, .scheduled, .scheduled])
        // Four days late, inside the window: one catch-up each for a and c, nothing for b.
        let late = s.takeDue(at: cal.at("2026-11-24 08:00"))
        #expect(late.map(\.routineID) == ["a", "c"])
        #expect(late.allSatisfy { $0.reason == .catchUp(missed: cal.at("2026-11-24 06:30")) && $0.due == cal.at("2026-11-24 08:00") })
        #expect(s.nextDue == cal.at("2026-11-25 06:30"))
        // Late after the window closed: only c (no window) catches up.
        t = s
        #expect(t.takeDue(at: cal.at("2026-11-25 10:00")).map(\.routineID) == ["c"])
    }
}

extension ScheduleTests {
    @Test func sunRunAtInANightWindowTakesTheNextMorning() throws {
        let cal = SchedulePlace.london
        let window = TimeWindowSpec(from: schedEdge("22:00"), to: schedEdge("09:00"), days: DaySet(weekdays: [2])) // Mondays
        let s = scheduler(cal, [routine("wake", runAt: "sunrise", window: window)])
        let runs = s.upcoming(from: cal.at("2026-12-20 00:00"), to: cal.at("2026-12-27 00:00"))
        let sunrise = try #require(cal.occurrence(of: .sunrise, on: schedDay("2026-12-22")).date)
        #expect(runs.map(\.due) == [sunrise])
        #expect(runs.first?.day == schedDay("2026-12-21"))
    }

    @Test func desiredStateIgnoresRoomModes() {
        let cal = SchedulePlace.london
        let s = scheduler(cal, [
            routine("home", runAt: "07:00", intent: .mode("home", duration: nil, rooms: [])),
            routine("kids", runAt: "19:00", intent: .mode("quiet", duration: nil, rooms: ["kids-room"])),
        ])
        #expect(s.desiredState(at: cal.at("2026-11-24 20:00"))?.mode == "home")
    }
}
