import ArgumentParser
import HouseDaemon

/// `housectl relays [--gpio sim|CHIP] [--node ID]`: the relays of a node, their lines and values.
struct RelaysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relays",
        abstract: "Show the relays of this node: channel, GPIO line, active-low, holder, logical and physical value.",
        discussion: """
            With --gpio sim (or when this machine has no GPIO chip) the relays are simulated and shown
            at their power-on levels. On a Pi the chip is only inspected: nothing is switched.
            Example: housectl relays --gpio sim --node pi-main
            """
    )

    @Option(help: "GPIO backend: sim, or a chip (name, path, label or number). Default: the board's chip, simulated when absent.")
    var gpio: String?
    @Option(help: "Node id (default: the only node, or the one named like this host).") var node: String?
    @OptionGroup var options: ConfigOptions

    func execute() -> CommandOutput {
        options.report { try RelayReports.relays(configuration: $0, node: node, gpio: gpio) }
    }

    func run() async throws { try execute().emit() }
}
