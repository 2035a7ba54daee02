import Foundation
import HouseCore

extension HouseholdSimulator {
    /// The first day of the example household's eight weeks: Monday 2026-02-23, so that the
    /// weeks span the change to summer time on 2026-03-29 (Europe/London).
    public static let exampleStart = LocalDate(year: 2026, month: 2, day: 23)!

    /// The example household's holiday: Good Friday to Easter Monday 2026, away.
    public static let exampleHolidays: Set<LocalDate> = Set((0..<4).map { LocalDate(year: 2026, month: 4, day: 3)!.adding(days: $0) })

    /// The habits injected into the example house (config/house.yaml): time-of-day habits of
    /// each kind of subject and days (one across midnight, one on a `confirm: true` door, one that
    /// a shortcut-only routine does), two sequences, two durations (one on the `confirm: true`
    /// heater) and two devices switched together.
    public static let exampleHabits: [InjectedHabit] = [
        .timeOfDay(.device("hall-light", .on), days: .weekdaysOnly, at: TimeOfDay(hour: 6, minute: 40)),
        .timeOfDay(.device("office-plug", .on), days: .weekdaysOnly, at: TimeOfDay(hour: 9, minute: 0)),
        .timeOfDay(.device("living-floor-lamp", .on), days: .everyDay, at: TimeOfDay(hour: 19, minute: 30)),
        .timeOfDay(.device("bedroom-fan", .on), days: .everyDay, at: TimeOfDay(hour: 23, minute: 55)),
        .timeOfDay(.mode("movie"), days: .weekends, at: TimeOfDay(hour: 20, minute: 30)),
        .timeOfDay(.routine("garden-water"), days: DaySet(weekdays: [1, 4]), at: TimeOfDay(hour: 10, minute: 0)),
        .timeOfDay(.device("garage-door", .open), days: .weekdaysOnly, at: TimeOfDay(hour: 8, minute: 15)),
        .sequence(.device("bedroom-ceiling-light", .on), then: .device("bedroom-bedside-lamp", .on), gapSeconds: 60...240),
        .sequence(.device("kitchen-light", .on), then: .device("living-ceiling-light", .on), gapSeconds: 30...180),
        .duration("office-fan", minutes: 40),
        .duration("bathroom-heater", minutes: 25),
        .timeOfDay(.mode("night"), days: .everyDay, at: TimeOfDay(hour: 23, minute: 15)),
        .together([.device("garage-light", .on), .device("garden-pump", .on)], gapSeconds: 3...50),
    ]

    /// The devices of `configuration` people switch on and off (lights, fans, plugs, pumps, heaters).
    public static func switchedDevices(_ configuration: HouseConfiguration) -> [DeviceID] {
        configuration.devices.filter { $0.kind.supportedActions.contains(.on) && $0.motor == nil && $0.opener == nil }.map(\.id)
    }

    /// The example household for the example house: its habits (or none), noise from every
    /// switched device and the modes day and evening, the Easter holiday.
    public static func example(_ configuration: HouseConfiguration, seed: UInt64 = 63) -> HouseholdSimulator {
        var simulator = HouseholdSimulator(calendar: HouseCalendar(house: configuration.house), seed: seed,
                                           noiseDevices: switchedDevices(configuration))
        simulator.noiseModes = ["day", "evening"]
        simulator.holidays = exampleHolidays
        return simulator
    }
}
