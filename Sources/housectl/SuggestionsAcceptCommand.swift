import ArgumentParser
import HouseCore
import HouseDaemon

/// `housectl suggestions accept ID`: what the suggestion suggests, written to housectl's file
/// beside house.yaml.
struct SuggestionsAcceptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accept",
        abstract: "Accept a suggestion: what it suggests is written to house.accepted.yaml beside house.yaml.",
        discussion: """
            ID is one that housectl suggestions lists now (from the same history and --now). House.yaml is never rewritten: the routine, mode or rule is added to house.accepted.yaml (a max_on, a run time or a device added to a mode as a change to house.yaml's item), which the configuration is read with; nothing is written when the configuration it makes would not load. The controller runs it once it loads the configuration again (restart housectl serve).
            """
    )

    @Argument(help: "The suggestion's id (s-...), as housectl suggestions prints it.")
    var id: String

    @OptionGroup var history: HistoryOptions

    @OptionGroup var options: ConfigOptions

    func execute() -> CommandOutput {
        let desk = SuggestionDesk(configPath: options.config, devicesDirectory: options.devices)
        return SuggestionsCommand.answer(desk, history) { desk, lines, now throws(SuggestionError) in
            let s = try desk.accept(id, from: lines, now: now)
            return "Accepted \(s.id): \(s.text)\nWritten to \(desk.acceptedPath); the controller runs it once it loads the configuration again (restart housectl serve)."
        }
    }

    func run() async throws { try execute().emit() }
}
