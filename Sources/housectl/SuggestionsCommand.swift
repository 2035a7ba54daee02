import ArgumentParser
import Foundation
import HouseCore
import HouseDaemon

/// `housectl suggestions [--from-history FILE] [--now TIME] [--json | --yaml]`: the routines,
/// modes, `max_on` timers and rules the household's habits suggest, found in the controller's
/// history (its state database) or in a history of JSON lines; `accept ID` and `dismiss ID`
/// answer one.
struct SuggestionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggestions",
        abstract: "Suggest routines, modes, max_on timers and rules from the habits in a history, with the evidence; accept or dismiss one.",
        discussion: """
            Without --from-history, reads what people did (from the command line, MQTT and the page; not routines or rules) in the controller's state database (--state-dir; run it on the node that coordinates the house). With --from-history, reads a history as JSON lines, one event a line (actions: on, off, open, close):
              {"time": "2026-03-02T06:47:12Z", "device": "kitchen-light", "action": "on"}
              {"time": "2026-03-02T22:40:00+00:00", "mode": "night"}
              {"time": "2026-03-02T22:41:00+00:00", "routine": "good-night"}

            Looks at the eight weeks up to --now, in the house's local time, for something done at about the same time on a recognisable set of days (weekdays, weekends, every day, some weekdays) on most of those days, one thing regularly followed by another within 5 minutes, devices switched together in either order, and a device switched off again after about the same time. Nothing is learnt from fewer than suggestions.min_occurrences days (default 7) over suggestions.min_weeks weeks (default 2); suggestions.enabled: false turns suggestions off.

            A malformed line is reported at FILE:LINE with what was expected (exit status 1) and the rest is read; an unknown device, mode or routine is a warning. Nothing is switched: a suggestion is a sentence and a house.yaml snippet (--yaml) until you accept it.

            housectl suggestions accept ID writes what suggestion ID suggests into house.accepted.yaml beside house.yaml (house.yaml itself is never rewritten); the controller runs it once it loads the configuration again. housectl suggestions dismiss ID remembers that you do not want it: it is not suggested again unless the habit changes (another time, other days, other devices give another ID).
            """,
        subcommands: [SuggestionsAcceptCommand.self, SuggestionsDismissCommand.self]
    )

    @OptionGroup var history: HistoryOptions

    @OptionGroup var options: ConfigOptions

    @Flag(name: .long, help: "Print JSON for machines: each suggestion with its id, kind, devices, mode or routine, days, local window and evidence.")
    var json = false

    @Flag(name: .long, help: "Print the house.yaml snippets that would carry the suggestions out.")
    var yaml = false

    func execute() -> CommandOutput {
        let desk = SuggestionDesk(configPath: options.config, devicesDirectory: options.devices)
        let listing: SuggestionDesk.Listing
        let history: HabitHistory
        switch Self.list(desk, self.history) {
        case .success(let l): (listing, history) = (l, l.history)
        case .failure(let e): return CommandOutput(text: "", exitCode: 1, errors: e.description)
        }
        let configuration = listing.configuration
        let calendar = HouseCalendar(house: configuration.house)
        let failed = history.diagnostics.contains { $0.severity == .error }
        let errors = history.diagnostics.map(\.description).joined(separator: "\n")
        guard let end = listing.now else {
            return CommandOutput(text: "No events in \(listing.source): nothing to learn from.", exitCode: failed ? 1 : 0, errors: errors)
        }
        let suggestions = listing.suggestions
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

    /// The listing of `desk` for the history and `--now` of `options`.
    static func list(_ desk: SuggestionDesk, _ options: HistoryOptions) -> Result<SuggestionDesk.Listing, SuggestionError> {
        Result { () throws(SuggestionError) in
            let configuration = try desk.configuration()
            let now = try options.end(calendar: HouseCalendar(house: configuration.house)).get()
            return try desk.list(try options.lines().get(), now: now)
        }
    }

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
            lines.append("No suggestions: no habit seen on \(settings.minOccurrences) days or more over \(settings.minWeeks) weeks or more that the house does not already do, or that was not answered.")
        }
        for (i, s) in suggestions.enumerated() {
            let e = s.habit.evidence
            var evidence = "\(e.occurrences) of \(e.outOf)"
            if let median = e.medianTime { evidence += ", median \(median) ±\(Int(e.spread.components.seconds / 60)) min" }
            if let typical = e.typical { evidence += ", typically \(DurationParser.format(typical)) (±\(DurationParser.format(e.spread)))" }
            evidence += "; first seen \(calendar.dateTimeText(e.firstSeen)), last seen \(calendar.dateTimeText(e.lastSeen))"
            lines += ["", "\(i + 1). \(s.text)", "   evidence: \(evidence)",
                      "   \(s.id) (\(s.kind.rawValue)): housectl suggestions accept|dismiss \(s.id); --yaml prints its house.yaml"]
        }
        return lines.joined(separator: "\n")
    }
}
