import ArgumentParser

/// `housectl suggestions accept ID`: what the suggestion suggests, written to housectl's file
/// beside house.yaml.
struct SuggestionsAcceptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accept",
        abstract: "Accept a suggestion: what it suggests is written to house.accepted.yaml beside house.yaml.",
        discussion: """
            ID is one that housectl suggestions lists now (from the same history and --now). It never rewrites house.yaml: the routine, mode or rule is added to house.accepted.yaml (a max_on, a run time or a device added to a mode as a change to house.yaml's item), which the configuration is read with; nothing is written when the configuration it makes would not load. The controller runs it once it loads the configuration again (restart housectl serve).
            """
    )

    @OptionGroup var answer: SuggestionAnswerOptions

    func execute() -> CommandOutput { answer.execute(accept: true) }

    func run() async throws { try execute().emit() }
}
