import ArgumentParser
import HouseDaemon

/// `housectl status [--room R | --floor F]`: the house mode and which devices are on, from the
/// controller, grouped by floor when the house has floors.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the house mode and the state of every device (asks the running controller).",
        discussion: """
            Devices are listed by floor when house.yaml has floors (rooms on no floor come last, \
            under "Elsewhere").

            Examples: housectl status --room kitchen; housectl status --floor upstairs
            """
    )

    @Option(help: "Only this room (id, name or alias).") var room: String?
    @Option(help: "Only this floor (id, name or alias, e.g. upstairs).") var floor: String?
    @Flag(help: "Print JSON for machines.") var json = false
    @OptionGroup var options: ConfigOptions
    @OptionGroup var client: ClientOptions

    func execute() async -> CommandOutput {
        let configuration: HouseConfiguration
        switch options.load() {
        case .success(let c): configuration = c
        case .failure(let e): return CommandOutput(text: "", exitCode: 1, errors: e.description)
        }
        let states: IntentReply
        let mode: IntentReply
        do {
            states = try await client.request(.intent(.query(QueryHouseStatusIntent(queryType: .deviceStates, room: room, floor: floor))),
                                              configuration: configuration)
            mode = try await client.request(.intent(.query(QueryHouseStatusIntent(queryType: .mode))), configuration: configuration)
        } catch {
            return CommandOutput(text: "", exitCode: ExitStatus.noController.rawValue, errors: error.description)
        }
        if json { return CommandOutput(text: "[\(mode.json),\(states.json)]", exitCode: ExitStatus(reply: states.status).rawValue) }
        guard states.status == .done else { return client.render(states, json: false) }
        var lines = [mode.dialog]
        let devices = states.results.first?.response?.devices ?? []
        let width = max(6, devices.map(\.device.rawValue.count).max() ?? 6)
        let roomWidth = max(4, devices.map(\.room.rawValue.count).max() ?? 4)
        func pad(_ s: String, _ n: Int) -> String { s.padding(toLength: n, withPad: " ", startingAt: 0) }
        lines.append(pad("DEVICE", width) + "  " + pad("ROOM", roomWidth) + "  STATE")  // a sensor: its value
        for group in Self.byFloor(devices, configuration) {
            if let title = group.title { lines.append(title) }
            for d in group.devices {
                lines.append(pad(d.device.rawValue, width) + "  " + pad(d.room.rawValue, roomWidth) + "  " + (d.value ?? d.cover.map(Self.coverText) ?? d.state?.rawValue ?? "unknown"))
            }
        }
        lines.append(states.dialog)
        lines += states.coordination?.lines ?? []
        return CommandOutput(text: lines.joined(separator: "\n"), exitCode: 0)
    }

    func run() async throws { try await execute().emit() }

    /// The devices in floor order, each floor under its name ("Elsewhere" for rooms on no floor);
    /// one untitled group when the house has no floors.
    static func byFloor(_ devices: [HouseResponse.DeviceStatus], _ configuration: HouseConfiguration)
        -> [(title: String?, devices: [HouseResponse.DeviceStatus])] {
        guard !configuration.floors.isEmpty else { return [(nil, devices)] }
        let floorOf = { (d: HouseResponse.DeviceStatus) in configuration.room(id: d.room)?.floor }
        var groups = configuration.floors.map { floor in
            (title: Optional(floor.name + ":"), devices: devices.filter { floorOf($0) == floor.id })
        }
        groups.append((title: "Elsewhere:", devices: devices.filter { floorOf($0) == nil }))
        return groups.filter { !$0.devices.isEmpty }
    }

    /// A cover's line: `open 100%`, `closing 60%`, `stopped 40% (assumed)`.
    static func coverText(_ report: CoverReport) -> String {
        "\(report.state.rawValue) \(report.position)%" + (report.assumed ? " (assumed)" : "")
    }
}
