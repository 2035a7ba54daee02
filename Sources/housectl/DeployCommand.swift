import ArgumentParser
import HouseDaemon

/// `housectl deploy ...`: helpers for installing on a Raspberry Pi.
struct DeployCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deploy",
        abstract: "Helpers for installing housectl on a Raspberry Pi.",
        subcommands: [BootConfigCommand.self]
    )
}

/// `housectl deploy boot-config`: the `config.txt` lines that hold every relay line at its off level
/// from power-on until housectl takes over.
struct BootConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "boot-config",
        abstract: "Print the /boot/firmware/config.txt lines (gpio=LINE=op,dh|dl) that keep relays off from power-on.",
        discussion: """
            The firmware applies these before Linux boots, so no relay clicks on while the Pi starts.
            Append the output to /boot/firmware/config.txt (/boot/config.txt on older systems) and reboot.
            """
    )

    @Option(help: "Node id (default: this host's node, or every node in its own section).") var node: String?
    @OptionGroup var options: ConfigOptions

    func execute() -> CommandOutput {
        options.report { try RelayReports.bootConfig(configuration: $0, node: node) }
    }

    func run() async throws { try execute().emit() }
}
