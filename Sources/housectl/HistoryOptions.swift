import ArgumentParser
import Foundation
import HouseCore
import HouseDaemon

/// Where `suggestions` (and its `accept` and `dismiss`) and `shortcuts` read what people did,
/// and the end of the period looked at.
struct HistoryOptions: ParsableArguments {
    @Option(name: .customLong("from-history"), help: ArgumentHelp("The history: a file of JSON lines, one event a line (see housectl suggestions --help); default: the controller's state database.", valueName: "file"))
    var fromHistory: String?

    @Option(name: .customLong("state-dir"), help: "Where the controller's state database lives (default: as housectl serve: $STATE_DIRECTORY, $XDG_STATE_HOME/housectl or ~/.local/state/housectl).")
    var stateDirectory: String?

    @Option(name: .long, help: "The time: ISO 8601 with its offset, or local \"YYYY-MM-DD HH:MM\" in the house zone. For suggestions the end of the period looked at (default: the last event's time); for shortcuts the time they are ranked at (default: now).")
    var now: String?

    /// The history's lines, from the file or the state database; an error says which is missing.
    func lines() -> Result<HabitLines, SuggestionError> {
        if let fromHistory {
            guard let data = FileManager.default.contents(atPath: fromHistory) else {
                return .failure(.history("\(fromHistory): cannot read the history file"))
            }
            return .success(HabitLines(text: String(decoding: data, as: UTF8.self), source: fromHistory))
        }
        let path = (stateDirectory ?? DaemonOptions.defaultStateDirectory()) + "/housectl.sqlite"
        guard FileManager.default.fileExists(atPath: path) else {
            return .failure(.history("no state database at \(path): give --state-dir (where housectl serve keeps it) or --from-history FILE"))
        }
        do {
            let store = try StateStore(path: path)
            defer { try? store.close() }
            return .success(try store.habitLines())
        } catch {
            return .failure(.history("\(error)"))
        }
    }

    /// `--now` read in the house's zone; nil without it.
    func end(calendar: HouseCalendar) -> Result<Date?, SuggestionError> {
        guard let now else { return .success(nil) }
        guard let parsed = WallInstant(iso8601: now)?.date ?? calendar.parseLocal(now) else {
            return .failure(.history("--now: expected ISO 8601 with an offset or \"YYYY-MM-DD HH:MM\", found '\(now)'"))
        }
        return .success(parsed)
    }
}
