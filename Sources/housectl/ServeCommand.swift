import ArgumentParser
import Foundation
import HouseCore
import HouseDaemon
import HouseHomeKit
import HouseWeb
import Logging
import ServiceLifecycle

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
            With `web:` in house.yaml (or --web-port) the primary node also serves the page: the house \
            at a glance, a phrase box, the day as a picture, history and energy (see docs/WEB.md).
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
    @Option(name: .customLong("web-port"), help: "Serve the page on this port (0: any free port), whatever web.port says; turns the page on for 127.0.0.1 when house.yaml has no web section.")
    var webPort: Int?
    @Flag(name: .customLong("no-web"), help: "Do not serve the page, whatever house.yaml says.") var noWeb = false
    @Option(name: .customLong("start-time"), help: ArgumentHelp(
        "Rehearse another day: the house's clock starts at this local time, \"YYYY-MM-DD HH:MM\" in the house zone, and runs at its real pace. Needs --gpio sim.",
        discussion: "Routines, relevance windows, mode ends, history and the page follow that clock; log lines keep the real time."))
    var startTime: String?
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
        let loaded = try options.phrases(extra: phrases, language: configuration.house.language)
        logger.info("phrases: \(loaded.grammar)")
        let phraseSet = loaded.phraseSet
        var clock = SystemWallClock()
        if let startTime {
            guard let start = HouseCalendar(house: configuration.house).parseLocal(startTime) else {
                throw ValidationError("--start-time expects a local date and time, \"YYYY-MM-DD HH:MM\", not '\(startTime)'")
            }
            clock = SystemWallClock(startingAt: start)
            logger.warning("rehearsal: the house's clock starts at \(startTime) (\(configuration.house.timeZone.identifier)), relays simulated")
        }
        let settings = ControllerSettings(
            configuration: configuration, clock: clock, node: node,
            stateDirectory: stateDirectory ?? DaemonOptions.defaultStateDirectory(), gpio: gpio,
            brokerOverride: override, phrases: phraseSet, logger: logger)
        do {
            let controller = try await HouseController.build(settings)
            var extra: [ServiceGroupConfiguration.ServiceConfiguration] = []
            var bridge: HomeKitBridge?
            if let homekit = configuration.homekit, homekit.enabled {
                if controller.isPrimary {
                    let service = try HomeKitService(controller: controller, settings: homekit, stateDirectory: settings.stateDirectory)
                    bridge = service.bridge
                    extra.append(.init(service: service, serviceName: "homekit"))
                } else {
                    logger.info("homekit: the bridge is served by the primary node, \(configuration.nodes.first?.id.rawValue ?? "?")")
                }
            }
            if let web = webSettings(configuration) {
                if controller.isPrimary {
                    // The page shows the bridge's setup code while nobody is paired.
                    let app = try WebApp(controller: controller, settings: web, homekit: bridge,
                                         suggestions: SuggestionDesk(configPath: options.config, devicesDirectory: options.devices))
                    extra.append(.init(service: WebService(app: app), serviceName: "web"))
                } else {
                    logger.info("web: the page is served by the primary node, \(configuration.nodes.first?.id.rawValue ?? "?")")
                }
            }
            try await controller.run(exitIfStuck: true, adding: extra)
        } catch let error as DaemonError {
            logger.critical("\(error)")
            throw ExitCode(1)
        } catch let error as HomeKitError {
            logger.critical("homekit: \(error)")
            throw ExitCode(1)
        } catch let error as WebError {
            logger.critical("\(error)")
            throw ExitCode(1)
        }
    }
}

extension ServeCommand {
    /// The page's settings: house.yaml's, with the port from --web-port; none with --no-web.
    func webSettings(_ configuration: HouseConfiguration) -> WebSettings? {
        if noWeb { return nil }
        var web = configuration.web
        if let webPort {
            if web == nil { web = WebSettings() }
            web?.port = webPort
        }
        return web
    }

    mutating func validate() throws {
        if let webPort, !(0...65535).contains(webPort) { throw ValidationError("--web-port expects a TCP port, 0...65535 (0: any free port)") }
        if noWeb && webPort != nil { throw ValidationError("--no-web and --web-port contradict each other") }
        if startTime != nil, gpio.map(DaemonOptions.GPIOChoice.init) != .simulated {
            throw ValidationError("--start-time needs --gpio sim: a rehearsal of another time never drives real relays")
        }
    }
}
