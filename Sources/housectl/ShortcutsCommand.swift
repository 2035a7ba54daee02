import ArgumentParser
import Foundation
import HouseCore
import HouseDaemon

/// `housectl shortcuts [--now "2026-11-23 07:15"]`: the shortcuts relevant now (or at a given
/// time), ranked by their windows and by the household's habits, with why.
struct ShortcutsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shortcuts",
        abstract: "List the shortcut phrases relevant now (or at a given time), ranked by their windows and by habit, with why.",
        discussion: """
            A shortcut is relevant in its window (relevant: in house.yaml); the household's habits found in the history (as housectl suggestions finds them: what people do at about this time on these days) rank the routines that do them higher, and what people habitually do now that no routine does is listed after them. The history is the controller's state database (--state-dir) or --from-history FILE; without either, the windows alone rank.
            """
    )

    @OptionGroup var history: HistoryOptions

    @OptionGroup var options: ConfigOptions

    @Option(name: .long, help: ArgumentHelp("The same as --now.", visibility: .hidden))
    var at: String?

    /// The report at `--now` (or `--at`), else at `clock`'s now; the habits up to then.
    func execute(clock: some WallClock) -> CommandOutput {
        let configuration: HouseConfiguration
        switch options.load() {
        case .success(let c): configuration = c
        case .failure(let e): return CommandOutput(text: "", exitCode: 1, errors: e.description)
        }
        var time = history
        if time.now == nil { time.now = at }
        let instant: Date
        switch time.end(calendar: HouseCalendar(house: configuration.house)) {
        case .success(let given): instant = given ?? clock.now.date
        case .failure(let e): return CommandOutput(text: "", exitCode: 1, errors: e.description)
        }
        var habits: [Habit] = []
        var notes: [String] = []
        var failed = false
        switch history.lines() {
        case .success(let lines):
            let read = HabitHistory.read(lines.text, file: lines.source, configuration: configuration)
            notes += read.diagnostics.map(\.description)
            failed = read.diagnostics.contains { $0.severity == .error }
            habits = configuration.suggestions.enabled ? HabitFinder(configuration: configuration).habits(in: read.events, now: instant) : []
        case .failure(let e) where history.fromHistory != nil:
            return CommandOutput(text: "", exitCode: 1, errors: e.description)
        case .failure(let e):
            notes.append("\(e); ranked by the windows alone")
        }
        let text = ScheduleReport.shortcuts(configuration, at: instant, habits: habits)
        return CommandOutput(text: String(text.dropLast()), exitCode: failed ? 1 : 0, errors: notes.joined(separator: "\n"))
    }

    func run() async throws { try execute(clock: SystemWallClock()).emit() }
}
