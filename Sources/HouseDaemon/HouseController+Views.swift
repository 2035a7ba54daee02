import Foundation
import HouseCore

/// What the controller shows of itself to the page: reads only (every change goes through the bus).
extension HouseController {
    /// The whole house now.
    public func overview() async -> HouseOverview {
        await engine.overview()
    }

    /// The plan of a local day: windows, planned runs, sun, the modes (the routines' and those
    /// set now), and the routine runs recorded as done that day.
    public func dayPlan(_ day: LocalDate) async throws(DaemonError) -> DayPlan {
        let timelines = await engine.modeSnapshot.timelines
        // The plan keeps the runs due within the day (one of yesterday's window may run after midnight).
        let ran = try store.routineRuns().filter(\.done).map { DayPlan.Ran(routine: $0.routineID, at: $0.due) }
        return DayPlan(configuration, day: day, timelines: timelines, ran: ran)
    }

    /// Today in the house's zone, on the controller's clock.
    public var today: LocalDate { HouseCalendar(house: configuration.house).localDate(of: clock.now.date) }
}
