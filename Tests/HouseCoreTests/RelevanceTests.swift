import Foundation
import Testing
@testable import HouseCore

@Suite struct RelevanceTests {
    let cal = SchedulePlace.london
    let routines = [
        Routine(id: "morning", shortcut: "Good morning house",
                relevant: TimeWindowSpec(from: schedEdge("06:00"), to: schedEdge("09:00"), days: .weekdaysOnly),
                runAt: schedEdge("06:30"), intent: .mode("morning", duration: nil, rooms: [])),
        Routine(id: "night", shortcut: "Good night house",
                relevant: TimeWindowSpec(from: schedEdge("sunset"), to: schedEdge("02:00")),
                intent: .mode("night", duration: nil, rooms: [])),
        Routine(id: "coffee", shortcut: "Make coffee", intent: .control(room: "kitchen", device: "coffee", action: .on)),
    ]

    @Test func explainsWhyAShortcutIsRelevant() throws {
        let engine = RelevanceEngine(routines: routines, calendar: cal)
        let r = engine.relevant(at: cal.at("2026-11-24 07:12"))
        #expect(r.map(\.routineID) == ["morning"])
        #expect(r.first?.explanation == "relevant 06:00-09:00 on weekdays; now Tuesday 07:12")
        // Saturday morning: not a weekday.
        #expect(engine.relevant(at: cal.at("2026-11-28 07:12")).isEmpty)
    }

    @Test func sunWindowAfterMidnightShowsResolvedTimes() throws {
        let engine = RelevanceEngine(routines: routines, calendar: cal)
        let r = engine.relevant(at: cal.at("2026-11-25 01:30"))
        let night = try #require(r.first)
        #expect(night.routineID == "night")
        #expect(night.window?.day == schedDay("2026-11-24"))
        let sunset = try #require(cal.occurrence(of: .sunset, on: schedDay("2026-11-24")).date)
        #expect(night.explanation == "relevant sunset (\(cal.clockText(sunset)))-02:00 every day; now Wednesday 01:30")
    }

    @Test func habitRanksAndRetentionForgets() throws {
        let now = cal.at("2026-11-24 07:12")
        // Coffee made around 07:00 on most recent days, by id or by intent.
        var history = (1...10).map { UsageRecord(routineID: "coffee", at: now.addingTimeInterval(-Double($0) * 86400 - 600)) }
        history.append(UsageRecord(intent: .control(room: "kitchen", device: "coffee", action: .on), at: now.addingTimeInterval(-86400 * 11)))
        // Uses at other times of day do not count.
        history.append(UsageRecord(routineID: "coffee", at: now.addingTimeInterval(-86400 - 6 * 3600)))
        let engine = RelevanceEngine(routines: routines, calendar: cal)
        let r = engine.relevant(at: now, history: history)
        #expect(Set(r.map(\.routineID)) == ["morning", "coffee"])
        let coffee = try #require(r.first { $0.routineID == "coffee" })
        #expect(coffee.habitUses == 11)
        #expect(coffee.explanation.contains("used 11 times near this time in the last 28d"))

        // With strong habit weight, habit outranks a plain in-window shortcut.
        var strong = engine
        strong.options.habitWeight = 5
        #expect(strong.relevant(at: now, history: history).first?.routineID == "coffee")

        // A short retention forgets old uses.
        var forgetful = engine
        forgetful.options.retention = .seconds(3 * 86400 + 3600)
        #expect(forgetful.relevant(at: now, history: history).first { $0.routineID == "coffee" }?.habitUses == 3)
        forgetful.options.retention = .seconds(3600)
        #expect(forgetful.relevant(at: now, history: history).map(\.routineID) == ["morning"])
    }

    @Test func habitAddsToAnInWindowShortcut() throws {
        let now = cal.at("2026-11-24 07:12")
        let engine = RelevanceEngine(routines: routines, calendar: cal)
        let plain = try #require(engine.relevant(at: now).first)
        let used = try #require(engine.relevant(at: now, history: [UsageRecord(subject: "good morning HOUSE", at: now.addingTimeInterval(-86400))]).first)
        #expect(used.score > plain.score)
        #expect(used.habitUses == 1)
    }
}
