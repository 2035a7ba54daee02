import Foundation
import HouseCore

/// A benchmark (not a test) of the scheduler: every run of `routineCount` generated routines over
/// a whole year, as the runner would take them, on a virtual timeline.
///
/// The routines mix clock and sun `run_at`s, windows crossing midnight, weekday sets, jitter and
/// both daylight-saving policies, in the house zone Europe/London (two DST changes a year).
enum SchedulerBenchmark {
    /// The figures of one benchmark run.
    struct Result: Sendable, CustomStringConvertible {
        var routineCount: Int
        var year: Int
        /// Runs produced over the year.
        var runs: Int
        /// Time to plan the first run of every routine.
        var startDuration: Duration
        /// Time to take every run of the year (each one planning its routine's next run).
        var yearDuration: Duration

        /// Mean cost of one next-run computation.
        var perRun: Duration { runs == 0 ? .zero : yearDuration / runs }

        var description: String {
            "scheduler: \(routineCount) routines over \(year): \(runs) runs; start \(ms(startDuration)) ms, "
                + "year \(ms(yearDuration)) ms, \(String(format: "%.2f", perRun.inMilliseconds * 1000)) us per run"
        }

        private func ms(_ d: Duration) -> String { String(format: "%.1f", d.inMilliseconds) }
    }

    /// Runs the benchmark.
    static func run(routineCount: Int = 1000, year: Int = 2026) -> Result {
        let calendar = HouseCalendar(timeZone: HouseZone(identifier: "Europe/London") ?? .utc,
                                     latitude: 51.5074, longitude: -0.1278)
        let routines = makeRoutines(count: routineCount)
        var scheduler = RoutineScheduler(routines: routines, calendar: calendar, rng: SeededJitterGenerator(seed: 42))
        let from = calendar.start(of: LocalDate(year: year, month: 1, day: 1)!)
        let to = calendar.start(of: LocalDate(year: year + 1, month: 1, day: 1)!)
        let clock = ContinuousClock()
        let t0 = clock.now
        _ = scheduler.start(at: from, lastActive: nil)
        let t1 = clock.now
        var runs = 0
        while let next = scheduler.nextDue, next < to {
            runs += scheduler.takeDue(at: next).count
        }
        let t2 = clock.now
        return Result(routineCount: routineCount, year: year, runs: runs, startDuration: t1 - t0, yearDuration: t2 - t1)
    }

    /// Generated routines, deterministic for a count.
    static func makeRoutines(count: Int) -> [Routine] {
        let daySets: [DaySet] = [.everyDay, .weekdaysOnly, .weekends, DaySet(weekdays: [2, 4, 6])]
        return (0..<count).map { i in
            let minute = (i * 37) % 1440
            let at = TimeOfDay(hour: minute / 60, minute: minute % 60)
            let days = daySets[i % daySets.count]
            let window: TimeWindowSpec?
            let runAt: TimeEdge
            switch i % 4 {
            case 0:
                runAt = .clock(at)
                window = nil
            case 1:
                runAt = .clock(at)
                let startMinute = (minute + 1440 - 60) % 1440
                let endMinute = (minute + 120) % 1440
                window = TimeWindowSpec(from: .clock(TimeOfDay(hour: startMinute / 60, minute: startMinute % 60)),
                                        to: .clock(TimeOfDay(hour: endMinute / 60, minute: endMinute % 60)), days: days)
            case 2:
                runAt = .sun(.sunset, offset: .seconds((i % 7) * 600))
                window = TimeWindowSpec(from: .sun(.sunset, offset: .zero), to: .clock(TimeOfDay(hour: 2, minute: 0)),
                                        days: days)
            default:
                runAt = .sun(.sunrise, offset: .seconds(-(i % 5) * 600))
                window = TimeWindowSpec(from: .sun(.dawn, offset: .seconds(-3600)), to: .sun(.noon, offset: .zero),
                                        days: days)
            }
            return Routine(id: RoutineID("r\(i)"), shortcut: "routine \(i)", relevant: window, runAt: runAt,
                           jitter: i % 3 == 0 ? .seconds(900) : nil,
                           daylightSaving: i % 2 == 0 ? .runAfterGap : .skip,
                           intent: .mode(ModeID("m\(i % 5)"), duration: nil, rooms: []))
        }
    }
}
