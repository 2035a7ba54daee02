import ArgumentParser

/// `housectl config ...`: work with the house configuration.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check the house configuration.",
        subcommands: [ConfigCheckCommand.self]
    )
}
