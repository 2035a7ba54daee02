import Foundation
import HouseCore
import HouseTesting
import Testing

@testable import HouseWeb

/// The modes row of the day's picture: a mode from the run that sets it, the mode carried over
/// before it, and the day's end written 24:00.
@Suite struct DayPictureTests {
    /// The titles of the picture's mode bars, in the order drawn.
    static func modeTitles(_ svg: String) -> [String] {
        svg.matches(of: /<rect class="mode"[^>]*><title>([^<]*)<\/title>/).map { String($0.output.1) }
    }

    static func titles(_ configuration: HouseConfiguration, _ day: String) -> [String] {
        modeTitles(DayPicture(plan: DayPlan(configuration, day: LocalDate(day)!), configuration: configuration, now: nil).svg)
    }

    @Test func aModeSetAt0630IsDrawnFrom0630AfterTheModeTheHouseWasIn() throws {
        let example = try HouseFixtures.exampleConfiguration()
        // A future Monday, and the Saturday with no mode routine.
        #expect(Self.titles(example, "2026-11-30") == ["morning for the house, 00:00-06:30, since Friday 2026-11-27 06:30",
                                                       "morning for the house, 06:30-24:00"])
        #expect(Self.titles(example, "2026-11-28") == ["morning for the house, 00:00-24:00, since Friday 2026-11-27 06:30"])
        // The Monday after the clocks go forward (Friday in GMT, Monday in BST), and the day they go back.
        #expect(Self.titles(example, "2026-03-30") == ["morning for the house, 00:00-06:30, since Friday 2026-03-27 06:30",
                                                       "morning for the house, 06:30-24:00"])
        #expect(Self.titles(example, "2026-10-25") == ["morning for the house, 00:00-24:00, since Friday 2026-10-23 06:30"])
        // Every day, on the 23-hour day: a bar from 06:30 BST (a temporary evening at 18:00), where the picture puts 5.5 of 23 hours.
        let daily = try HouseFixtures.exampleConfiguration(routines: HouseFixtures.everyDayModeRoutines)
        let plan = DayPlan(daily, day: LocalDate("2026-03-29")!)
        let svg = DayPicture(plan: plan, configuration: daily, now: nil).svg
        #expect(Self.modeTitles(svg) == ["night for the house, 00:00-06:30, since Saturday 2026-03-28 22:00",
                                         "morning for the house, 06:30-18:00", "evening for the house, 18:00-20:00 (temporary)",
                                         "morning for the house, 20:00-22:00", "night for the house, 22:00-24:00"])
        let left = DayPicture.left, plot = DayPicture.width - DayPicture.left - DayPicture.right
        #expect(svg.contains(#"<rect class="mode" data-mode="morning" x="\#(String(format: "%.1f", left + 5.5 / 23 * plot))""#))
        #expect(!svg.contains("00:00-00:00"))
    }
}
