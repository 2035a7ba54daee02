import ArgumentParser
import Foundation
import HouseCore
import HouseDaemon
import HouseWeb

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

    @Option(name: .long, help: "Write the day YYYY-MM-DD (or \"today\") as an SVG picture instead: relevance windows, planned runs with their random delay, sun and modes (what ran is on the page only).")
    var svg: String?

    @Option(name: .shortAndLong, help: "With --svg: the file to write (default: stdout).")
    var output: String?

    func run() async throws {
        if let next, next <= 0 { throw ValidationError(ScheduleError.invalidCount(next).description) }
        let house = try loadHouseConfiguration(path: config)
        let calendar = HouseCalendar(house: house.house)
        if let svg {
            let today = calendar.localDate(of: SystemWallClock().now.date)
            guard let day = svg == "today" ? today : LocalDate(svg) else {
                throw ValidationError("--svg expects a day YYYY-MM-DD or today, not '\(svg)'")
            }
            let picture = DayPicture(plan: DayPlan(house, day: day), configuration: house, now: day == today ? SystemWallClock().now.date : nil).svg
            if let output {
                guard FileManager.default.createFile(atPath: output, contents: Data((picture + "\n").utf8)) else {
                    throw ValidationError("cannot write \(output)")
                }
            } else {
                print(picture)
            }
            return
        }
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
