import ArgumentParser
import Foundation
import HouseDaemon

/// The `housectl` command line: argument parsing only; each subcommand lives in its own file.
/// The entry point is main.swift.
struct Housectl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "housectl",
        abstract: "A smart-home controller for the Raspberry Pi: relays, MQTT, routines and shortcut phrases.",
        version: HousectlVersion.current,
        subcommands: [
            ServeCommand.self, SayCommand.self, PhrasesCommand.self, StatusCommand.self, ControlCommand.self, ModeCommand.self,
            HistoryCommand.self, ShortcutsCommand.self, SuggestionsCommand.self, RoutinesCommand.self, RelaysCommand.self,
            ConfigCommand.self, DeployCommand.self, BrokerCommand.self, WebCommand.self, HomeKitCommand.self,
        ]
    )
}

extension Housectl {
    /// Parses and runs the command (ArgumentParser's asynchronous entry point; main.swift's
    /// top-level code would pick its synchronous one).
    static func start() async {
        await main(nil)
    }
}
