import ArgumentParser
import HouseCore

/// `housectl mode set M [--rooms ...] [--for 2h] --dry-run`.
struct ModeSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Put the house, or some rooms, in a mode, optionally for a while.",
        discussion: "Example: housectl mode set movie --rooms living-room --for 2h --dry-run"
    )

    @Argument(help: "Mode id or name (night, away, movie...).") var mode: String
    @Option(parsing: .upToNextOption, help: "Rooms (ids, names or aliases; space or comma separated). Default: the mode's rooms.")
    var rooms: [String] = []
    @Option(name: .customLong("for"), help: ArgumentHelp("How long, e.g. 30m, 2h, 1h30m (at most 24h); then the previous mode returns.", valueName: "duration"))
    var duration: String?
    @Flag(help: "Say yes to the confirmation question (modes marked confirm, e.g. away).") var yes = false
    @Option(help: "Act as this source, to check its permissions.") var source: IntentSource = .cli
    @Flag(help: "Resolve, confirm and plan, but issue nothing.") var dryRun = false
    @Flag(help: "Print JSON for machines.") var json = false
    @OptionGroup var options: ConfigOptions
    @OptionGroup var client: ClientOptions

    func validate() throws {
        if let duration, DurationParser.parseChecked(duration) == nil {
            throw ValidationError("--for expects a duration such as 30m, 2h or 1h30m, not '\(duration)'")
        }
    }

    func execute() async throws -> CommandOutput {
        let roomList = rooms.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let intent = HouseIntent.setMode(SetHouseModeIntent(
            mode: mode, duration: duration.flatMap(DurationParser.parseChecked), rooms: roomList.isEmpty ? nil : roomList))
        return await IntentRunner.run(intent, options: options, source: source, answers: IntentAnswers(confirmed: yes), dryRun: dryRun, json: json, client: client)
    }

    func run() async throws { try await execute().emit() }
}
