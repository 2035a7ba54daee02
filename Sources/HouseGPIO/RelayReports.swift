import Foundation
import HouseCore

/// The text of `housectl relays` and `housectl deploy boot-config`, so the CLI only parses
/// arguments and prints.
public enum RelayReports {
    /// The node this machine is: `requested`, else the only node, else the node named like this host.
    public static func node(in configuration: HouseConfiguration, requested: String?, hostName: String = ProcessInfo.processInfo.hostName) throws(GPIOError) -> NodeID {
        let ids = configuration.nodes.map(\.id)
        if let requested {
            guard ids.contains(NodeID(requested)) else {
                throw .invalidLayout(node: NodeID(requested), problems: ["no node \"\(requested)\" in the configuration (nodes: \(ids.isEmpty ? "none" : ids.joined(separator: ", ")))"])
            }
            return NodeID(requested)
        }
        if let local = configuration.localNode(hostName: hostName) { return local.id }
        let short = hostName.split(separator: ".").first.map(String.init) ?? hostName
        throw .invalidLayout(node: NodeID(short), problems: [
            "this host (\(short)) is not one of the nodes (\(ids.isEmpty ? "none" : ids.joined(separator: ", "))); choose one with --node"
        ])
    }

    /// `housectl relays`: the relay lines of `node` on the chip chosen by `gpio` (`sim`, a chip, or
    /// nil for the configured chip with the simulation as fallback).
    ///
    /// On the simulation the relays are powered on as the daemon would (without saved state), so the
    /// listing shows the power-on levels. On hardware nothing is requested: lines are only inspected.
    public static func relays(configuration: HouseConfiguration, node requested: String?, gpio: String?) throws(GPIOError) -> String {
        let nodeID = try node(in: configuration, requested: requested)
        let layout = try RelayLayout(configuration: configuration, node: nodeID)
        let clock = ContinuousClock()
        let selection = try GPIOBackend.open(option: gpio, configuredChip: layout.chip, clock: clock)
        var out = ""
        if let warning = selection.warning { out += warning + "\n" }
        out += "node \(nodeID), board \(layout.board)\n"
        if selection.chip is SimulatedChip {
            let bank = try RelayBank(layout: layout, chip: selection.chip, at: SystemWallClock().now)
            out += RelayTable.render(RelayTable.rows(layout: layout, chip: selection.chip), chip: selection.chip)
            out += "power-on (simulated, no saved state):\n"
            for d in bank.powerOnDecisions { out += "  \(d)\n" }
        } else {
            out += RelayTable.render(RelayTable.rows(layout: layout, chip: selection.chip), chip: selection.chip)
            out += "lines held by another process show \"?\" values; ask the daemon with `housectl status`.\n"
        }
        for g in layout.groups {
            out += "interlock \(g.id): \(g.members.joined(separator: ", ")), dead time \(fmt(g.deadTime))\n"
        }
        return out
    }

    /// `housectl deploy boot-config`: the `config.txt` lines for `node`, or for every node with
    /// relays (one section each) when none is given and the host is not a node.
    public static func bootConfig(configuration: HouseConfiguration, node requested: String?, hostName: String = ProcessInfo.processInfo.hostName) throws(GPIOError) -> String {
        let nodes: [NodeID]
        if let requested {
            nodes = [try node(in: configuration, requested: requested)]
        } else if let mine = try? node(in: configuration, requested: nil, hostName: hostName) {
            nodes = [mine]
        } else {
            nodes = configuration.nodes.map(\.id)
        }
        var sections: [String] = []
        for id in nodes {
            let inputs = configuration.devices.filter { $0.input?.node == id }
            sections.append(BootConfig.render(try RelayLayout(configuration: configuration, node: id), inputs: inputs))
        }
        return sections.joined(separator: "\n")
    }
}
