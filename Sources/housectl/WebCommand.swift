import ArgumentParser

/// `housectl web ...`: what the page needs besides `serve` (its password file).
struct WebCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "Manage the page housectl serve serves (web: in house.yaml).",
        subcommands: [WebPasswdCommand.self]
    )
}
