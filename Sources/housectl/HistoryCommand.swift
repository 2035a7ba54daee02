import ArgumentParser
import HouseDaemon

/// `housectl history [--limit N]`: what the house did lately, from the controller's database.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show the latest handled intents: when, from where (\(IntentSource.allCases.map(\.rawValue).joined(separator: ", "))), what, and the answer."
    )

    @Option(help: "How many records (1-1000).") var limit: Int = 20
    @Flag(help: "Print JSON for machines.") var json = false
    @OptionGroup var options: ConfigOptions
    @OptionGroup var client: ClientOptions

    func validate() throws {
        guard (1...1000).contains(limit) else { throw ValidationError("--limit must be from 1 to 1000") }
    }

    func execute() async -> CommandOutput {
        switch options.load() {
        case .success(let configuration):
            return await client.send(.history(limit: limit), configuration: configuration, json: json)
        case .failure(let e):
            return CommandOutput(text: "", exitCode: 1, errors: e.description)
        }
    }

    func run() async throws { try await execute().emit() }
}
