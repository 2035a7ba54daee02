import ArgumentParser
import Foundation
import HouseDaemon
import Logging

/// `housectl serve`: the daemon.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the controller: relays, MQTT topic API, routines, rules, Home Assistant discovery.",
        discussion: """
            With `mqtt: {broker: embedded}` (or no broker configured) it starts its own MQTT broker on
            127.0.0.1:1883 (or the configured port). Without a GPIO chip (not on a Pi) the relays are
            simulated, with a warning. Stops gracefully on SIGTERM or SIGINT: the message in hand is
            finished, relays follow their shutdown policy, the state is committed, the node status
            becomes offline (best effort: at most 1 s for the broker's acknowledgement). It exits
            within 5 s whatever the broker does, with status 0; a step still stuck after 4.5 s, or a
            second SIGTERM/SIGINT, commits the state, releases the relay lines per their shutdown
            policy and exits at once with status 70.
            Example: housectl serve --config config/house.yaml --gpio sim
            """
    )

    @Option(help: "This node's id (default: the only node, or the one named like this host).") var node: String?
    @Option(name: .customLong("state-dir"), help: "Where the state database lives (default: $STATE_DIRECTORY, $XDG_STATE_HOME/housectl or ~/.local/state/housectl).")
    var stateDirectory: String?
    @Option(help: "GPIO backend: sim, or a chip (name, path, label or number). Default: the board's chip, simulated when absent.")
    var gpio: String?
    @Option(help: "Use this MQTT broker (HOST:PORT) instead of the configured one.") var broker: String?
    @Option(help: "Phrase templates to add to config/phrases.yaml (Home Assistant sentence syntax); repeatable.")
    var phrases: [String] = []
    @Flag(name: .shortAndLong, help: "Log more (debug).") var verbose = false
    @OptionGroup var options: ConfigOptions

    func run() async throws {
        let level: Logger.Level = verbose ? .debug : .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardOutput(label: label)
            handler.logLevel = level
            return handler
        }
        var logger = Logger(label: "housectl")
        logger.logLevel = level
        let configuration = try options.load().get()
        var override: (host: String, port: Int)? = nil
        if let broker {
            guard let hp = DaemonOptions.parseHostPort(broker) else { throw ValidationError("--broker expects HOST:PORT, not '\(broker)'") }
            override = hp
        }
        let phraseSet = try PhraseFiles.load(configPath: options.config, extra: phrases)
        let settings = ControllerSettings(
            configuration: configuration, clock: SystemWallClock(), node: node,
            stateDirectory: stateDirectory ?? DaemonOptions.defaultStateDirectory(), gpio: gpio,
            brokerOverride: override, phrases: phraseSet, logger: logger)
        do {
            let controller = try await HouseController.build(settings)
            try await controller.run(exitIfStuck: true)
        } catch let error as DaemonError {
            logger.critical("\(error)")
            throw ExitCode(1)
        }
    }
}

/// Loading the phrase templates: `phrases.yaml` beside the house configuration, then the user's files.
enum PhraseFiles {
    static func load(configPath: String, extra: [String]) throws -> PhraseSet {
        let directory = URL(fileURLWithPath: configPath).deletingLastPathComponent()
        var paths = [directory.appendingPathComponent("phrases.yaml").path]
        paths += extra
        var set = PhraseSet()
        for path in paths {
            guard FileManager.default.fileExists(atPath: path) else {
                if extra.contains(path) { throw ValidationError("phrase file \(path) does not exist") }
                continue
            }
            set = set.merging(try PhraseSet.load(contentsOf: URL(fileURLWithPath: path)))
        }
        return set
    }
}
