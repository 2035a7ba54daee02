import ArgumentParser
import Foundation
import HouseCore
import HouseDaemon

/// `housectl suggestions [--from-history FILE] [--now TIME] [--json | --yaml]`: the routines,
/// `max_on` timers and rules the household's habits suggest, found in the controller's history
/// (its state database) or in a history of JSON lines.
struct SuggestionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggestions",
        abstract: "Suggest routines, max_on timers and rules from the habits in a history, with the evidence.",
        discussion: """
            Without --from-history, reads what people did (from the command line, MQTT and the page; not routines or rules) in the controller's state database (--state-dir; run it on the node that coordinates the house). With --from-history, reads a history as JSON lines, one event a line (actions: on, off, open, close):
              {"time": "2026-03-02T06:47:12Z", "device": "kitchen-light", "action": "on"}
              {"time": "2026-03-02T22:40:00+00:00", "mode": "night"}
              {"time": "2026-03-02T22:41:00+00:00", "routine": "good-night"}

            Looks at the eight weeks up to --now, in the house's local time, for something done at about the same time on a recognisable set of days (weekdays, weekends, every day, some weekdays) on most of those days, one thing regularly followed by another within 5 minutes, and a device switched off again after about the same time. Nothing is learnt from fewer than suggestions.min_occurrences days (default 7) over suggestions.min_weeks weeks (default 2); suggestions.enabled: false turns suggestions off.

            A malformed line is reported at FILE:LINE with what was expected (exit status 1) and the rest is read; an unknown device, mode or routine is a warning. Nothing is switched: a suggestion is a sentence and a house.yaml snippet (--yaml) until you add it.
            """
    )

    @Option(name: .customLong("from-history"), help: ArgumentHelp("The history: a file of JSON lines, one event a line (see above); default: the controller's state database.", valueName: "file"))
    var fromHistory: String?

    @Option(name: .customLong("state-dir"), help: "Where the controller's state database lives (default: as housectl serve: $STATE_DIRECTORY, $XDG_STATE_HOME/housectl or ~/.local/state/housectl).")
    var stateDirectory: String?

    @OptionGroup var options: ConfigOptions

    @Option(name: .long, help: "The end of the period looked at: ISO 8601 with its offset, or local \"YYYY-MM-DD HH:MM\" in the house zone (default: the last event's time).")
    var now: String?

    @Flag(name: .long, help: "Print JSON for machines: each suggestion with its kind, devices, mode or routine, days, local window and evidence.")
    var json = false

    @Flag(name: .long, help: "Print the house.yaml snippets that would carry the suggestions out.")
    var yaml = false

    func execute() -> CommandOutput {
        let configuration: HouseConfiguration
        switch options.load() {
        case .success(let c): configuration = c
        case .failure(let e): return CommandOutput(text: "", exitCode: 1, errors: e.description)
        }
        let source: String, lines: String
        if let fromHistory {
            guard let data = FileManager.default.contents(atPath: fromHistory) else {
                return CommandOutput(text: "", exitCode: 1, errors: "\(fromHistory): cannot read the history file")
            }
            (source, lines) = (fromHistory, String(decoding: data, as: UTF8.self))
        } else {
            let path = (stateDirectory ?? DaemonOptions.defaultStateDirectory()) + "/housectl.sqlite"
            guard FileManager.default.fileExists(atPath: path) else {
                return CommandOutput(text: "", exitCode: 1, errors: "no state database at \(path): give --state-dir (where housectl serve keeps it) or --from-history FILE")
            }
            do {
                let store = try StateStore(path: path)
                defer { try? store.close() }
                (source, lines) = (path, try store.habitLines(since: .distantPast).joined(separator: "\n"))
            } catch {
                return CommandOutput(text: "", exitCode: 1, errors: "\(error)")
            }
        }
        let calendar = HouseCalendar(house: configuration.house)
        let history = HabitHistory.read(lines, file: source, configuration: configuration)
        let failed = history.diagnostics.contains { $0.severity == .error }
        let errors = history.diagnostics.map(\.description).joined(separator: "\n")
        let end: Date
        if let now {
            guard let parsed = WallInstant(iso8601: now)?.date ?? calendar.parseLocal(now) else {
                return CommandOutput(text: "", exitCode: 1, errors: "--now: expected ISO 8601 with an offset or \"YYYY-MM-DD HH:MM\", found '\(now)'")
            }
            end = parsed
        } else if let last = history.lastTime {
            end = last
        } else {
            return CommandOutput(text: "No events in \(source): nothing to learn from.", exitCode: failed ? 1 : 0, errors: errors)
        }
        let suggestions = configuration.habitSuggestions(from: history.events, now: end)
        let text: String
        if json {
            text = JSONOutput.encode(suggestions.map { $0.record(calendar: calendar) })
        } else if yaml {
            text = suggestions.map { "# \($0.id): \($0.kind.rawValue)\n\($0.yaml)" }.joined(separator: "\n")
        } else {
            text = Self.report(suggestions, history: history, end: end, configuration: configuration, calendar: calendar)
        }
        return CommandOutput(text: text.hasSuffix("\n") ? String(text.dropLast()) : text, exitCode: failed ? 1 : 0, errors: errors)
    }

    func run() async throws { try execute().emit() }

    /// The readable report: each suggestion with its evidence.
    static func report(_ suggestions: [HabitSuggestion], history: HabitHistory, end: Date, configuration: HouseConfiguration,
                       calendar: HouseCalendar) -> String {
        let settings = configuration.suggestions
        var lines = ["\(history.events.count) event\(history.events.count == 1 ? "" : "s") up to \(calendar.dateTimeText(end, zone: true)) (\(configuration.house.timeZone.identifier))."]
        if !settings.enabled {
            lines.append("Suggestions are off (suggestions: {enabled: false}).")
            return lines.joined(separator: "\n")
        }
        if suggestions.isEmpty {
            lines.append("No suggestions: no habit seen on \(settings.minOccurrences) days or more over \(settings.minWeeks) weeks or more that the house does not already do.")
        }
        for (i, s) in suggestions.enumerated() {
            let e = s.habit.evidence
            var evidence = "\(e.occurrences) of \(e.outOf)"
            if let median = e.medianTime { evidence += ", median \(median) ±\(Int(e.spread.components.seconds / 60)) min" }
            if let typical = e.typical { evidence += ", typically \(DurationParser.format(typical)) (±\(DurationParser.format(e.spread)))" }
            evidence += "; first seen \(calendar.dateTimeText(e.firstSeen)), last seen \(calendar.dateTimeText(e.lastSeen))"
            lines += ["", "\(i + 1). \(s.text)", "   evidence: \(evidence)", "   \(s.kind.rawValue) \(s.id) (--yaml prints its house.yaml)"]
        }
        return lines.joined(separator: "\n")
    }
}
