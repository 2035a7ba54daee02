import ArgumentParser
import HouseCore

/// `housectl control --room R --device D --action A --dry-run`: switch a device, or move a cover
/// (`--action open|close|stop`, `--position 40`).
struct ControlCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "control",
        abstract: "Switch a device: resolve, confirm and handle a control intent.",
        discussion: """
            A cover (kind: cover) opens, closes and stops (off is stop), or goes to a position from \
            0 (closed) to 100 (open) with --position.
            \(ExitStatus.help)
            Examples: housectl control --room bedroom --device lights --action off --dry-run
                      housectl control --device living-shutter --position 40
            """
    )

    @Option(help: "Room id, name or alias.") var room: String?
    @Option(help: "Device id or name; a plural name (lights) means all of them.") var device: String?
    @Option(help: "on, off, toggle, open, close or stop (a cover; --position sets the action position).") var action: HouseAction?
    @Option(help: "Move a cover to this position, 0 (closed) to 100 (open).") var position: Int?
    @Flag(help: "Every device of that name in the room (or the house).") var all = false
    @Option(help: "Answer a question: PARAMETER=OPTION, e.g. room=bedroom or device=bedroom-bedside-lamp.")
    var choose: [String] = []
    @Flag(help: "Say yes to the confirmation question.") var yes = false
    @Option(help: "Act as this source, to check its permissions.") var source: IntentSource = .cli
    @Flag(help: "Resolve, confirm and plan, but issue nothing.") var dryRun = false
    @Flag(help: "Print JSON for machines.") var json = false
    @OptionGroup var options: ConfigOptions
    @OptionGroup var client: ClientOptions

    func execute() async throws -> CommandOutput {
        let intent = HouseIntent.control(HouseControlIntent(room: room, action: position == nil ? action : .position, device: device,
                                                            plural: all, position: position))
        return await IntentRunner.run(intent, options: options, source: source,
                                      answers: try IntentRunner.answers(choose: choose, yes: yes), dryRun: dryRun, json: json, client: client)
    }

    func run() async throws { try await execute().emit() }
}
