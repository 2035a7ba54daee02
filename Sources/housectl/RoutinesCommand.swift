import ArgumentParser
import Foundation
import HouseDaemon

/// `housectl routines [--next N] [--from DATE --to DATE]`: the upcoming routine runs, computed on a
/// virtual clock. (The scheduler benchmark, once `--bench` here, is `housectl-bench scheduler`.)
struct RoutinesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "routines",
        abstract: "Show the upcoming routine runs (a week by default), computed on a virtual clock."
    )

    @Option(name: .long, help: "The house configuration file.")
    var config: String = "config/house.yaml"

    @Option(name: .long, help: "Show at most this many runs.")
    var next: Int?

    @Option(name: .long, help: "Start, local \"YYYY-MM-DD\" or \"YYYY-MM-DD HH:MM\" (default: now).")
    var from: String?

    @Option(name: .long, help: "End, local \"YYYY-MM-DD\" or \"YYYY-MM-DD HH:MM\" (default: a week after the start, or a year with --next).")
    var to: String?

    func run() async throws {
        if let next, next <= 0 { throw ValidationError(ScheduleError.invalidCount(next).description) }
        let house = try loadHouseConfiguration(path: config)
        let calendar = HouseCalendar(house: house.house)
        func parse(_ text: String) throws -> Date {
            guard let d = calendar.parseLocal(text) else {
                throw ValidationError(ScheduleError.invalidDateTime(text).description)
            }
            return d
        }
        let start = try from.map(parse) ?? SystemWallClock().now.date
        let end = try to.map(parse)
        do {
            print(try ScheduleReport.routines(house, from: start, to: end, limit: next ?? .max), terminator: "")
        } catch let error as ScheduleError {
            throw ValidationError(error.description)
        }
    }
}
