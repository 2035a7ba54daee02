import ArgumentParser
import Foundation
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

    /// Sets the heap policy before anything starts a thread, then parses and runs the command.
    static func main() async {
        ProcessMemory.useOneMallocArena(environment: ProcessInfo.processInfo.environment)
        await main(nil)
    }
}
