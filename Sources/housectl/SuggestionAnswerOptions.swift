import ArgumentParser
import Foundation
import HouseCore
import HouseDaemon

/// What `suggestions accept` and `suggestions dismiss` are given: the suggestion's id, and the
/// history and configuration it is one of the suggestions of.
struct SuggestionAnswerOptions: ParsableArguments {
    @Argument(help: "The suggestion's id (s-...), as housectl suggestions prints it.")
    var id: String

    @OptionGroup var history: HistoryOptions

    @OptionGroup var options: ConfigOptions

    /// Accepts the suggestion (`accept`) or dismisses it, and says what that did; an error says why not.
    func execute(accept: Bool) -> CommandOutput {
        let desk = SuggestionDesk(configPath: options.config, devicesDirectory: options.devices)
        do throws(SuggestionError) {
            let configuration = try desk.configuration()
            let now = try history.end(calendar: HouseCalendar(house: configuration.house)).get()
            let lines = try history.lines().get()
            let s = accept ? try desk.accept(id, from: lines, now: now) : try desk.dismiss(id, from: lines, now: now)
            let text = accept
                ? "Accepted \(s.id): \(s.text)\nWritten to \(desk.acceptedPath); the controller runs it once it loads the configuration again (restart housectl serve)."
                : "Dismissed \(s.id): \(s.text)\nIt is not suggested again while the habit stays the same (kept in \(desk.acceptedPath))."
            return CommandOutput(text: text, exitCode: 0)
        } catch {
            return CommandOutput(text: "", exitCode: 1, errors: error.description)
        }
    }
}
