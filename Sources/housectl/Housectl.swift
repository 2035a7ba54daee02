import ArgumentParser
import HouseDaemon

/// The `housectl` command line: argument parsing only; each subcommand lives in its own file.
@main
struct Housectl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "housectl",
        abstract: "A smart-home controller for the Raspberry Pi: relays, MQTT, routines and shortcut phrases.",
        subcommands: [
            ConfigCommand.self, ControlCommand.self, ModeCommand.self,
            ShortcutsCommand.self, RoutinesCommand.self,
            RelaysCommand.self, DeployCommand.self, BrokerCommand.self, PhraseBenchCommand.self,
        ]
    )
}
