import ArgumentParser
import HouseDaemon

/// The `housectl` command line: argument parsing only; each subcommand lives in its own file.
@main
struct Housectl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "housectl",
        abstract: "A smart-home controller for the Raspberry Pi: relays, MQTT, routines and shortcut phrases.",
        version: HousectlVersion.current,
        subcommands: [
            ServeCommand.self, SayCommand.self, StatusCommand.self, ControlCommand.self, ModeCommand.self,
            HistoryCommand.self, ShortcutsCommand.self, RoutinesCommand.self, RelaysCommand.self,
            ConfigCommand.self, DeployCommand.self, BrokerCommand.self, WebCommand.self,
        ]
    )
}
