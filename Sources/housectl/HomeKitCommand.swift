import ArgumentParser
import Foundation
import HouseCore
import HouseDaemon
import HouseHomeKit

/// `housectl homekit`: the HomeKit bridge's setup code, its setup URI and QR code, and who is
/// paired, from the state directory `serve` keeps the bridge's files in.
struct HomeKitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "homekit",
        abstract: "Show the HomeKit bridge's setup code and QR code, how many controllers are paired, and whether it is announced by mDNS.",
        discussion: """
            The bridge runs in `housectl serve` on the primary node when house.yaml has \
            homekit: {enabled: true}; its first start makes the setup code (unless homekit.pin_file \
            names one) and the setup ID, kept in <state-dir>/homekit. Run this on that node, with the \
            same --state-dir and --config as serve.

            To add the house to Apple Home: keep `housectl serve` running with avahi-daemon running \
            on the same machine (the iPhone finds the bridge by mDNS, on the same network). In the Home \
            app tap + and Add Accessory, and point the camera at the QR code printed here; or tap More \
            options..., choose the bridge ("<house> Bridge") and type the setup code. iOS says the \
            bridge is not certified: choose Add Anyway. Then give each accessory its room. One pairing \
            is enough for a household: the others are invited in the Home app. A paired bridge \
            refuses a second pairing; to pair anew, remove the bridge in the Home app first.
            The files are the service's own (0600): under systemd, run it as its user.
            Example: sudo -u housectl housectl homekit --config /etc/housectl/house.yaml --state-dir /var/lib/housectl
            """
    )

    @Option(name: .customLong("state-dir"), help: "Where serve keeps its state (default: $STATE_DIRECTORY, $XDG_STATE_HOME/housectl or ~/.local/state/housectl).")
    var stateDirectory: String?
    @Flag(name: .customLong("no-qr"), help: "Print the setup code and URI without the QR code.") var noQR = false
    @OptionGroup var options: ConfigOptions

    func execute(terminal: Bool = false) -> CommandOutput {
        options.report { configuration in
            guard let settings = configuration.homekit, settings.enabled else {
                throw ValidationError("HomeKit is off in \(options.config): add `homekit: {enabled: true}` (docs/CONFIG.md) and restart housectl serve")
            }
            let directory = (stateDirectory ?? DaemonOptions.defaultStateDirectory()) + "/homekit"
            let setup = try HomeKitSetup.read(pinFile: settings.pinFile, directory: directory,
                                              name: AccessoryDatabase.bridgeName(of: configuration))
            return Self.report(setup, settings: settings, qr: noQR ? nil : try QRCode(encoding: setup.setupURI),
                               mdns: HomeKitBridge.mdnsUnavailability(), terminal: terminal)
        }
    }

    func run() async throws { try execute(terminal: isatty(1) == 1).emit() }

    /// What the command prints: the code, the URI, the QR code (half blocks, coloured on a
    /// terminal), the pairing state, where the bridge listens, and mDNS.
    static func report(_ setup: HomeKitSetup, settings: HomeKitSettings, qr: QRCode?, mdns unavailable: String?, terminal: Bool) -> String {
        var lines = ["HomeKit bridge \"\(setup.name)\"", "Setup code: \(setup.code.text)", "Setup URI:  \(setup.setupURI)"]
        if let qr { lines += [""] + qr.terminalLines(ansi: terminal) + [""] }
        switch setup.pairedControllers {
        case 0: lines.append("Paired:     not yet: in the Home app, Add Accessory and scan the QR code (or type the setup code)")
        case let n: lines.append("Paired:     with \(n) controller\(n == 1 ? "" : "s"); to pair anew, remove the bridge in the Home app first")
        }
        let everywhere = settings.bind == "0.0.0.0" || settings.bind == "::"
        lines.append("Listens:    \(settings.bind):\(settings.port)\(everywhere ? " (every interface)" : "") while housectl serve runs")
        if let unavailable {
            lines.append("mDNS:       off: \(unavailable); the Home app cannot find the bridge until avahi-daemon runs")
        } else {
            lines.append("mDNS:       on: avahi-daemon runs; housectl serve announces the bridge as _hap._tcp")
        }
        return lines.joined(separator: "\n")
    }
}
