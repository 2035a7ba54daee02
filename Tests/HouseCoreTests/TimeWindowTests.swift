import Foundation
import Testing
@testable import HouseCore

@Suite struct TimeWindowTests {
    let cal = SchedulePlace.london

    /// Monday 2026-11-23 through Sunday 2026-11-29, by weekday number (1 = Sunday).
    static let weekOf: [Int: String] = [2: "2026-11-23", 3: "2026-11-24", 4: "2026-11-25", 5: "2026-11-26",
                                        6: "2026-11-27", 7: "2026-11-28", 1: "2026-11-29"]

    @Test func localDateArithmeticAndWeekdays() {
        #expect(schedDay("2026-11-23").weekday == 2) // Monday
        #expect(schedDay("2026-11-29").weekdayName == "Sunday")
        #expect(schedDay("2026-12-31").adding(days: 1) == schedDay("2027-01-01"))
        #expect(schedDay("2028-02-28").adding(days: 1).description == "2028-02-29")
        #expect(LocalDate("2026-02-29") == nil)
        #expect(LocalDate("yesterday") == nil)
    }

    /// A window 22:00-02:00 on a single day D is open D 23:00 and D+1 01:00 (it is D's, even when
    /// D+1 is not one of its days), and closed D+1 23:00 and D+2 01:00.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7])
    func midnightCrossingWindowBelongsToTheDayItStarts(weekday: Int) throws {
        let spec = TimeWindowSpec(from: schedEdge("22:00"), to: schedEdge("02:00"), days: DaySet(weekdays: [weekday]))
        let d = schedDay(Self.weekOf[weekday]!)
        let next = d.adding(days: 1)
        let lateD = cal.at("\(d) 23:00")
        let earlyNext = cal.at("\(next) 01:00")

        let w1 = try #require(cal.window(spec, containing: lateD))
        #expect(w1.day == d)
        let w2 = try #require(cal.window(spec, containing: earlyNext))
        #expect(w2.day == d)
        #expect(w2.end == cal.at("\(next) 02:00"))
        #expect(cal.window(spec, containing: cal.at("\(next) 02:00")) == nil) // end excluded
        #expect(cal.window(spec, containing: cal.at("\(next) 23:00")) == nil)
        #expect(cal.window(spec, containing: cal.at("\(next.adding(days: 1)) 01:00")) == nil)
        #expect(cal.window(spec, containing: cal.at("\(d) 01:00")) == nil) // that belongs to D-1
        #expect(cal.window(spec, on: next) == .notOnThisDay)
    }

    @Test func weekdayWindowAcrossTheWeekend() {
        // Friday's 22:00-02:00 covers early Saturday; Sunday's early hours belong to Saturday (not a
        // weekday) and Monday's to Sunday: both closed. Tuesday's belong to Monday: open.
        let spec = TimeWindowSpec(from: schedEdge("22:00"), to: schedEdge("02:00"), days: .weekdaysOnly)
        #expect(cal.window(spec, containing: cal.at("2026-11-28 01:30"))?.day == schedDay("2026-11-27"))
        #expect(cal.window(spec, containing: cal.at("2026-11-29 01:30")) == nil)
        #expect(cal.window(spec, containing: cal.at("2026-11-30 01:30")) == nil)
        #expect(cal.window(spec, containing: cal.at("2026-12-01 01:30"))?.day == schedDay("2026-11-30"))
        #expect(cal.window(spec, containing: cal.at("2026-11-28 22:30")) == nil)
    }

    @Test func sunEdgeWithOffset() throws {
        let spec = TimeWindowSpec(from: schedEdge("sunset+30m"), to: schedEdge("02:00"))
        let d = schedDay("2026-06-21")
        let w = try #require(cal.window(spec, on: d).window)
        let sunset = try #require(cal.occurrence(of: .sunset, on: d).date)
        #expect(w.start == sunset.addingTimeInterval(1800))
        #expect(w.end == cal.at("2026-06-22 02:00"))
        let before = TimeWindowSpec(from: schedEdge("sunrise-1h"), to: schedEdge("09:00"))
        let wb = try #require(cal.window(before, on: d).window)
        let sunrise = try #require(cal.occurrence(of: .sunrise, on: d).date)
        #expect(wb.start == sunrise.addingTimeInterval(-3600))
    }

    @Test func missingSunEdgeClosesTheWindowThatDay() {
        let spec = TimeWindowSpec(from: schedEdge("sunset"), to: schedEdge("02:00"))
        let tromso = SchedulePlace.tromso
        #expect(tromso.window(spec, on: schedDay("2026-06-21")) == .noSunEvent(.sunset, .sunAlwaysAbove))
        #expect(tromso.window(spec, containing: tromso.at("2026-06-21 23:30")) == nil)
        #expect(tromso.window(TimeWindowSpec(from: schedEdge("07:00"), to: schedEdge("sunrise")), on: schedDay("2026-12-15"))
            == .noSunEvent(.sunrise, .sunAlwaysBelow))
        // The same window exists in London that day.
        #expect(cal.window(spec, on: schedDay("2026-06-21")).window != nil)
    }

    @Test func windowEdgesInDaylightSavingHours() throws {
        // 29 Mar 2026, London: 01:00 GMT jumps to 02:00 BST. A window starting 01:30 opens at the gap end.
        let spring = TimeWindowSpec(from: schedEdge("01:30"), to: schedEdge("03:00"))
        let ws = try #require(cal.window(spring, on: schedDay("2026-03-29")).window)
        #expect(ws.start == schedUTC("2026-03-29T01:00:00Z"))
        #expect(ws.end == schedUTC("2026-03-29T02:00:00Z"))
        // 25 Oct 2026: 01:00-02:00 happens twice. A window 01:15-01:45 covers both readings.
        let fall = TimeWindowSpec(from: schedEdge("01:15"), to: schedEdge("01:45"))
        let wf = try #require(cal.window(fall, on: schedDay("2026-10-25")).window)
        #expect(wf.start == schedUTC("2026-10-25T00:15:00Z"))
        #expect(wf.end == schedUTC("2026-10-25T01:45:00Z"))
    }

    @Test func resolvesSkippedAndRepeatedLocalTimes() {
        let ny = SchedulePlace.newYork
        #expect(ny.resolve(schedTime("02:30"), on: schedDay("2026-03-08")) == .skipped(gapEnd: schedUTC("2026-03-08T07:00:00Z")))
        #expect(ny.resolve(schedTime("01:30"), on: schedDay("2026-11-01"))
            == .repeated(first: schedUTC("2026-11-01T05:30:00Z"), second: schedUTC("2026-11-01T06:30:00Z")))
        #expect(ny.resolve(schedTime("12:00"), on: schedDay("2026-07-04")) == .unique(schedUTC("2026-07-04T16:00:00Z")))
    }
}
