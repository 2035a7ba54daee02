import ArgumentParser

/// `housectl suggestions dismiss ID`: the suggestion is not offered again while its habit stays
/// the same.
struct SuggestionsDismissCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dismiss",
        abstract: "Dismiss a suggestion: it is not suggested again unless the habit changes.",
        discussion: """
            ID is one that housectl suggestions lists now (from the same history and --now). The answer is kept in house.accepted.yaml beside house.yaml. A suggestion's id is a hash of what it suggests (what is switched, on which days, at which half hour), so the same habit keeps its id and stays dismissed; a changed habit (another time, other days, other devices) is a new suggestion.
            """
    )

    @OptionGroup var answer: SuggestionAnswerOptions

    func execute() -> CommandOutput { answer.execute(accept: false) }

    func run() async throws { try execute().emit() }
}
