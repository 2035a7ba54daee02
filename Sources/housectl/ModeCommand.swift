import ArgumentParser

/// `housectl mode ...`: house modes.
struct ModeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mode",
        abstract: "Set the house mode.",
        subcommands: [ModeSetCommand.self]
    )
}
