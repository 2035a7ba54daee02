import Foundation
import HouseTesting
import Testing
@testable import HouseCore

/// `housectl shortcuts` and `housectl routines` on the example house (config/house.yaml).
@Suite struct ScheduleExampleConfigTests {
    @Test func shortcutsAnswerOnTheExampleHouse() throws {
        let config = try HouseFixtures.exampleConfiguration()
        let cal = HouseCalendar(house: config.house)
        let morning = ScheduleReport.shortcuts(config, at: try #require(cal.parseLocal("2026-11-23 07:15")))
        #expect(morning.contains("\"Good morning house\" (good-morning): relevant 06:00-09:00 on weekdays; now Monday 07:15"))
        let evening = ScheduleReport.shortcuts(config, at: try #require(cal.parseLocal("2026-11-23 16:20")))
        #expect(evening.contains("(good-night): relevant sunset (16:01)-02:00 every day; now Monday 16:20"))
        #expect(evening.contains("(garden-water): relevant sunset (16:01)-dusk (16:39) every day"))
    }

    @Test func routinesAnswerOnTheExampleHouse() throws {
        let config = try HouseFixtures.exampleConfiguration()
        let cal = HouseCalendar(house: config.house)
        let start = try #require(cal.parseLocal("2026-11-23"))
        let end = try #require(cal.parseLocal("2026-11-30"))
        let week = try ScheduleReport.routines(config, from: start, to: end)
        let lines = week.split(separator: "\n")
        #expect(lines.filter { $0.contains("good-morning") }.count == 5)
        #expect(lines.filter { $0.contains("garden-water") }.count == 7)
        #expect(lines.last == "Shortcut-only routines (no run_at): good-night")
        let next = try ScheduleReport.routines(config, from: try #require(cal.parseLocal("2026-11-23")), to: nil, limit: 2)
        #expect(next.hasPrefix("Next 2 runs after 2026-11-23 00:00 (Europe/London):\n  Mon 2026-11-23 06:30 GMT  good-morning"))
    }
}
