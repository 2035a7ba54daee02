import Foundation
import Testing
@testable import HouseCore

/// The text behind `housectl shortcuts` and `housectl routines`, on the example house of the design.
@Suite struct ScheduleReportTests {
    static let house = HouseConfiguration(
        house: HouseInfo(name: "Home", timeZone: HouseZone(identifier: "Europe/London")!, latitude: 51.5, longitude: -0.12),
        modes: [Mode(id: "morning"), Mode(id: "night")],
        routines: [
            Routine(id: "morning", shortcut: "Good morning house",
                    relevant: TimeWindowSpec(from: schedEdge("06:00"), to: schedEdge("09:00"), days: .weekdaysOnly),
                    runAt: schedEdge("06:30"), intent: .mode("morning", duration: nil, rooms: [])),
            Routine(id: "night", shortcut: "Good night house",
                    relevant: TimeWindowSpec(from: schedEdge("sunset"), to: schedEdge("02:00")),
                    intent: .mode("night", duration: nil, rooms: [])),
            Routine(id: "porch", shortcut: "Porch light", runAt: schedEdge("sunset+15m"), jitter: .seconds(600),
                    intent: .control(room: nil, device: "porch-light", action: .on)),
        ]
    )
    let cal = HouseCalendar(house: house.house)

    @Test func shortcutsReportListsRelevantShortcutsWithExplanations() {
        let text = ScheduleReport.shortcuts(Self.house, at: cal.at("2026-11-23 07:15"))
        #expect(text == """
            Relevant shortcuts at Monday 2026-11-23 07:15 GMT:
              1. "Good morning house" (morning): relevant 06:00-09:00 on weekdays; now Monday 07:15

            """)
        #expect(ScheduleReport.shortcuts(Self.house, at: cal.at("2026-11-23 12:00")).hasPrefix("No shortcut is relevant"))
    }

    @Test func routinesReportShowsAWeekOfRuns() throws {
        let text = try ScheduleReport.routines(Self.house, from: cal.at("2026-11-23 00:00"), to: cal.at("2026-11-30 00:00"))
        let lines = text.split(separator: "\n")
        // 5 weekday mornings + 7 porch lights, a header and the shortcut-only line.
        #expect(lines.count == 14)
        #expect(lines[1] == "  Mon 2026-11-23 06:30 GMT  morning  mode morning")
        #expect(lines[2].contains("porch") && lines[2].contains("(at sunset+15m; plus up to 10m random delay)"))
        #expect(lines.last == "Shortcut-only routines (no run_at): night")
        let limited = try ScheduleReport.routines(Self.house, from: cal.at("2026-11-23 00:00"), to: nil, limit: 3)
        #expect(limited.split(separator: "\n").count == 5)
    }

    @Test func routinesReportRejectsBadRanges() {
        #expect(throws: ScheduleError.self) {
            try ScheduleReport.routines(Self.house, from: cal.at("2026-11-23 00:00"), to: cal.at("2026-11-22 00:00"))
        }
        #expect(throws: ScheduleError.invalidCount(0)) {
            try ScheduleReport.routines(Self.house, from: cal.at("2026-11-23 00:00"), to: cal.at("2026-11-24 00:00"), limit: 0)
        }
        #expect(cal.parseLocal("2026-13-01 10:00") == nil)
        #expect(cal.parseLocal("tomorrow") == nil)
    }
}
