import ArgumentParser
import Foundation
import HouseDaemon

/// `housectl shortcuts [--at "2026-11-23 07:15"]`: the shortcuts relevant now (or at a given
/// local time), ranked, with why.
struct ShortcutsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shortcuts",
        abstract: "List the shortcut phrases relevant now (or at a given time), with why."
    )

    @Option(name: .long, help: "The house configuration file.")
    var config: String = "config/house.yaml"

    @Option(name: .long, help: "Local date and time in the house zone: \"YYYY-MM-DD HH:MM\" (default: now).")
    var at: String?

    func run() async throws {
        let house = try loadHouseConfiguration(path: config)
        let calendar = HouseCalendar(house: house.house)
        var instant = SystemWallClock().now.date
        if let at {
            guard let parsed = calendar.parseLocal(at) else {
                throw ValidationError(ScheduleError.invalidDateTime(at).description)
            }
            instant = parsed
        }
        print(ScheduleReport.shortcuts(house, at: instant), terminator: "")
    }
}
