import Foundation
import HouseBroker
import HouseCore
import HouseGPIO
import HouseMQTT
import Logging
import ServiceLifecycle
import Signals
import Synchronization
import UnixSignals

/// The controller of one node, built and ready to run: the relays of this node, the MQTT client
/// (and the embedded broker when the configuration names none), the house engine behind the one
/// command path (router -> bus -> engine -> store and broker), the state database and the routines. `housectl serve` builds one and runs it; the
/// tests build one the same way on a manual clock, a simulated chip and a broker on port 0.
public final class HouseController<C: WallClock>: Sendable {
    public let configuration: HouseConfiguration
    /// This node's id.
    public let node: NodeID
    /// The first node in `nodes:`: it keeps the house's energy figures, serves the page and
    /// announces the house-level entities to Home Assistant. Every node answers the `set` topics
    /// of its own relays.
    public let isPrimary: Bool
    /// Whether this node coordinates the house now (answers intent requests and mode commands,
    /// keeps the modes, runs the routines and the rules): the first node that may coordinate and
    /// is alive, chosen through the broker (see `CoordinatorElection`).
    public let coordination: Coordination
    /// What this node heard that a takeover needs (run claims, the coordinator's modes).
    let coordinationRecord = CoordinationRecord()
    public let layout: TopicLayout
    public let store: StateStore
    /// The one owner of the house's state; only the bus's consumer changes it.
    public let engine: HouseEngine
    /// The one serial command path, and its consumer (see `CommandBus`).
    let bus: CommandBus
    /// When the engine next needs a tick.
    let timers = TimerSchedule()
    /// The jobs the command bus has handed to its consumer so far (commands, and what the house
    /// learned by itself): with the commands sent, how many jobs a command makes (`make bench`
    /// prints it with row 7).
    public var busJobs: Int { bus.taken }
    /// The most commands from outside that waited on the bus at once, and how many may.
    public var busMostWaiting: (count: Int, capacity: Int) { (bus.mostWaiting, bus.capacity) }
    /// Told after every command the bus carried out: what watches the house (the page's live
    /// view) looks again.
    public let changes = ChangeFeed()
    public let client: MQTTClient
    /// The embedded broker, when this controller started one.
    public let broker: HouseBroker?
    /// Where the MQTT client connects.
    public let brokerHost: String
    public let brokerPort: Int
    /// This node's relay lines (for a forced exit: `RelayBank.releaseLinesForExit`); nil when
    /// the node has none.
    public let relayLayout: RelayLayout?
    /// What each relay of this node did at power-on, and why.
    public let powerOnDecisions: [PowerOnDecision]
    /// This node's inputs (buttons, contacts, motion sensors); nil when the node has none.
    public let inputs: InputBank?
    /// The GPIO chip the relays are on (a `SimulatedChip` in tests and off a Pi).
    public let chip: (any GPIOChip)?
    public let clock: C
    /// Runs the routines (when on).
    let runner: RoutineRunner<C, SystemRandomNumberGenerator>
    let restoredMode: Bool
    /// Whether the routines run (tests turn them off).
    let routinesOn: Bool
    let historyRetention: Duration
    public let logger: Logger
    /// Fulfilled once the controller is connected and has published its retained state.
    private let readiness: OneShot<Void>
    /// The time the graceful shutdown may take; see `run(signals:exitIfStuck:)`.
    public let shutdownDeadline: ShutdownDeadline

    /// Builds the controller: picks the node, opens the database, powers the relays on with their
    /// policies, starts the embedded broker if needed and prepares the MQTT client. Nothing is
    /// published until `run()`.
    public static func build(_ settings: ControllerSettings<C>) async throws -> HouseController<C> {
        try await HouseController(settings)
    }

    private init(_ s: ControllerSettings<C>) async throws {
        let config = s.configuration
        var logger = s.logger
        configuration = config
        clock = s.clock
        let nodeID = try RelayReports.node(in: config, requested: s.node, hostName: s.hostName)
        node = nodeID
        logger[metadataKey: "node"] = "\(node)"
        self.logger = logger
        isPrimary = config.nodes.first.map { $0.id == nodeID } ?? true
        layout = TopicLayout(base: config.mqtt.baseTopic)
        let clock = s.clock
        coordination = Coordination(node: nodeID, candidates: config.coordination.candidates(in: config, node: nodeID),
                                    lease: config.coordination.lease, now: { clock.monotonic.now })
        let role = coordination.isAlone ? " (coordinates the house)"
            : coordination.isCandidate ? " (may coordinate the house: \(coordination.candidates.map(\.rawValue).joined(separator: ", ")))" : ""
        logger.info("housectl \(HousectlVersion.current): house \"\(config.house.name)\", node \(node)\(role)")

        store = try StateStore(path: s.stateDirectory + "/housectl.sqlite", grouped: true)
        logger.info("state database \(store.path)")

        // Relays first, so their lines are at the right level as early as possible. The same
        // boot as the last run: the controller restarted (an upgrade, a crash), the machine did
        // not, so every relay keeps its state; `power_on` is for a new boot (a power cut).
        // A cover's windings start off, whatever they were: a run cut short by the restart is
        // not resumed from a position nobody knows (the cover's position is restored, assumed).
        let windings = Set(config.devices.flatMap { $0.motor == nil ? [] : $0.relayChannels.map(\.id) })
        let recorded = try store.relayStatesSince().filter { !windings.contains($0.key) }
        let persisted = recorded.mapValues(\.state)
        let boot = s.bootID ?? Self.currentBootID()
        let lastBoot = try store.bootID()
        let sameBoot = boot != nil && boot == lastBoot
        if let boot { try store.saveBootID(boot) }
        let now = s.clock.now.date
        let restart = sameBoot ? RelayRestart(onFor: recorded.filter { $0.value.state == .on }.mapValues {
            Duration.seconds(max(0, now.timeIntervalSince($0.since)))
        }) : nil
        let hasRelays = config.devices.contains { $0.node == nodeID && !$0.relayChannels.isEmpty }
        let hasInputs = config.devices.contains { $0.input?.node == nodeID }
        var bank: RelayBank? = nil
        var relayLayout: RelayLayout? = nil
        if hasRelays || hasInputs {
            let layout = try RelayLayout(configuration: config, node: node)
            let chip: any GPIOChip
            if let given = s.chip {
                chip = given
            } else {
                let selection = try GPIOBackend.open(option: s.gpio, configuredChip: layout.chip, clock: s.clock)
                if let warning = selection.warning { logger.warning("\(warning)") }
                chip = selection.chip
            }
            self.chip = chip
            if hasRelays {
                let powered = try RelayBank(layout: layout, chip: chip, at: s.clock.now, persisted: persisted, restart: restart)
                if sameBoot { logger.info("restarted in the same boot (\(boot ?? "?")): relays keep their state") }
                for decision in powered.powerOnDecisions { logger.info("power-on: \(decision)") }
                bank = powered
                relayLayout = layout
            } else {
                logger.info("node \(node) has no relays")
            }
            if hasInputs {
                let bank = try InputBank(configuration: config, node: nodeID, chip: chip)
                for event in bank.initialEvents { logger.info("input \(event)") }
                inputs = bank
            } else {
                inputs = nil
            }
        } else {
            inputs = nil
            chip = nil
            logger.info("node \(node) has no relays")
        }
        self.relayLayout = relayLayout
        powerOnDecisions = bank?.powerOnDecisions ?? []

        // The broker: ours in-process, or the configured one.
        let clientID = s.clientID ?? "housectl-\(node)"
        if let override = s.brokerOverride {
            broker = nil
            brokerHost = override.host
            brokerPort = override.port
        } else {
            switch config.mqtt.broker {
            case .embedded(let host, let port):
                var brokerConfiguration = HouseBroker.Configuration(host: host, port: s.embeddedPort ?? port)
                brokerConfiguration.allowAnonymous = true
                if let listener = config.mqtt.embedded {
                    // Shared with other Pis: every client logs in, the ACL applies, TLS on the
                    // listener and a plain port on loopback for this machine's own clients.
                    do {
                        brokerConfiguration.passwordFile = try PasswordFile(path: listener.passwordFile)
                        brokerConfiguration.accessControl = try listener.aclFile.map { try AccessControlList(path: $0) }
                    } catch {
                        throw DaemonError.startup("the embedded broker's files: \(error)")
                    }
                    brokerConfiguration.allowAnonymous = false
                    if let cert = listener.certFile, let key = listener.keyFile {
                        brokerConfiguration.tls = .init(certificateFile: cert, keyFile: key)
                        brokerConfiguration.loopbackPort = s.embeddedPort == nil ? listener.localPort : 0
                    }
                }
                brokerConfiguration.maximumQueuedMessages = 10_000
                // As deploy/mosquitto/mosquitto.conf: a command publishes two QoS 1 messages, and
                // the default window of 20 would hold a burst to 10 commands per round trip.
                brokerConfiguration.receiveMaximum = 100
                brokerConfiguration.maximumInflightMessages = 100
                brokerConfiguration.recordedMessageLimit = s.recordBrokerMessages
                var brokerLogger = logger
                brokerLogger.logLevel = .warning
                brokerConfiguration.logger = brokerLogger
                let started: HouseBroker
                do {
                    started = try await HouseBroker.start(brokerConfiguration)
                } catch {
                    throw DaemonError.startup("cannot start the embedded MQTT broker on \(host):\(s.embeddedPort ?? port): \(error) (is another broker running there? set mqtt.broker to its host, or another port)")
                }
                broker = started
                // Where this machine's clients reach it, on the ports it actually bound.
                brokerHost = config.mqtt.localEndpoint.host
                brokerPort = started.loopbackPort ?? started.port
                let local = started.loopbackPort.map { " (TLS) and 127.0.0.1:\($0)" } ?? ""
                logger.info("embedded MQTT broker listening on \(host):\(started.port)\(local)")
            case .external(let host, let port):
                broker = nil
                brokerHost = host
                brokerPort = port
            }
        }

        var credentials: MQTTCredentials? = nil
        if let user = config.mqtt.username {
            let password: MQTTCredentials.PasswordSource =
                config.mqtt.passwordFile.map { .file($0) } ?? config.mqtt.passwordEnv.map { .environment($0) } ?? .none
            credentials = MQTTCredentials(username: user, password: password)
        }
        // This machine's clients reach the embedded broker in the clear on loopback.
        let tls = broker != nil ? nil : config.mqtt.tls.map {
            MQTTTLSConfiguration(caFile: $0.caFile, certificateFile: $0.certFile, keyFile: $0.keyFile,
                                 verifyPeer: $0.verify, verifyHostname: $0.verify)
        }
        let statusTopic = layout.nodeStatus(node: node)
        var mqttConfiguration = MQTTConfiguration(
            host: brokerHost, port: brokerPort, clientID: clientID,
            // A persistent session: QoS 1 commands sent while the daemon is down wait at the broker.
            cleanSession: false, keepAlive: .seconds(Int64(max(5, config.mqtt.keepalive))),
            credentials: credentials, tls: tls,
            // `online` is no birth message: the topic API publishes it after the node's states.
            lastWill: MQTTMessage(topic: statusTopic, string: "offline", qos: .atLeastOnce, retain: true),
            reconnect: s.reconnect)
        mqttConfiguration.protocolVersion = config.mqtt.protocolVersion == .v311 ? .v311 : .v5
        var mqttLogger = logger
        mqttLogger.logLevel = max(logger.logLevel, .info)
        client = try MQTTClient(configuration: mqttConfiguration, logger: mqttLogger)
        logger.info("MQTT: \(mqttConfiguration)")

        let matcher: PhraseMatcher? = try s.phrases.map { try PhraseMatcher(phraseSet: $0, house: config) }
        let seen = try store.seenCommands(since: s.clock.now.advanced(by: .zero - HouseEngine.commandWindow).date)
        engine = HouseEngine(configuration: config, node: node, relays: bank, clock: s.clock, matcher: matcher,
                             seenCommands: seen.mapValues(WallInstant.init))
        // Energy continues across restarts (the primary node keeps it): the ledger from the
        // recorded edges, then every new one.
        if isPrimary {
            let energySince = now.addingTimeInterval(-Double(StateStore.energyKept.components.seconds))
            await engine.restoreEnergy(try store.energyEdges(since: energySince), end: try store.lastActive().map(WallInstant.init))
        }
        await engine.noteRelayStates()
        for case .level(let device, let active, _, _) in inputs?.initialEvents ?? [] {
            await engine.noteState(device, DeviceState(isOn: active))
        }
        await engine.restoreCovers(try store.coverPositions())
        let snapshot = try store.modes()
        if let snapshot {
            await engine.restoreModes(snapshot)
            let restored = await engine.currentMode ?? "mixed"
            logger.info("restored mode: \(restored)")
        }
        restoredMode = snapshot != nil && !(snapshot?.roomModes.isEmpty ?? true)
        bus = CommandBus(consumer: CommandBus.Consumer(engine: engine, store: store, client: client, timers: timers,
                                                       coordination: coordination, changes: changes, logger: logger))

        let scheduler = RoutineScheduler(configuration: config)
        runner = RoutineRunner(clock: s.clock, scheduler: scheduler,
                               lastActive: try store.lastActive(), records: s.routines ? try store.routineRuns() : [])
        routinesOn = s.routines
        historyRetention = s.historyRetention
        readiness = OneShot<Void>()
        shutdownDeadline = ShutdownDeadline(budget: s.shutdownBudget, logger: logger)
    }

    /// The services of this node, in start order (they stop in reverse order): the embedded
    /// broker, the MQTT connection, the state recorder, the command bus (its consumer), the
    /// timers, coordination, inputs, history retention, the routines, the router.
    public var services: [ServiceGroupConfiguration.ServiceConfiguration] {
        var list: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let broker {
            list.append(.init(service: EmbeddedBrokerService(broker: broker, logger: logger), serviceName: "broker"))
        }
        list.append(.init(service: MQTTConnectionService(client: client, statusTopic: layout.nodeStatus(node: node),
                                                         deadline: shutdownDeadline, logger: logger),
                          serviceName: "mqtt"))
        // Started before every writer, stopped after them all: the last commit.
        list.append(.init(service: StateRecorderService(store: store, logger: logger), serviceName: "state-recorder"))
        // Started before every source of commands, stopped after them all.
        list.append(.init(service: bus, serviceName: "command-bus"))
        list.append(.init(service: TimerService(schedule: timers, bus: bus, clock: clock), serviceName: "timers"))
        if coordination.isCandidate && !coordination.isAlone {
            list.append(.init(service: CoordinatorService(coordination: coordination, client: client, layout: layout, bus: bus,
                                                          clock: clock, logger: logger, heard: coordinationRecord,
                                                          deadline: shutdownDeadline),
                              serviceName: "coordination"))
        }
        if let inputs {
            list.append(.init(service: InputService(bank: inputs, bus: bus, logger: logger), serviceName: "inputs"))
        }
        list.append(.init(service: RetentionService(store: store, clock: clock, retention: historyRetention, logger: logger),
                          serviceName: "retention"))
        if coordination.isCandidate && routinesOn {
            list.append(.init(service: RoutineService(runner: runner, bus: bus, store: store, restoredMode: restoredMode,
                                                      coordination: coordination, record: coordinationRecord, client: client,
                                                      layout: layout, logger: logger),
                              successTerminationBehavior: .ignore, serviceName: "routines"))
        }
        let discovery = configuration.mqtt.discoveryPrefix.map {
            HomeAssistantDiscovery(configuration: configuration, node: node, layout: layout, prefix: $0)
        }
        let readiness = self.readiness
        let logger = self.logger
        let endpoint = "\(brokerHost):\(brokerPort)"
        let primary = coordination.isCandidate
        let base = layout.base
        list.append(.init(service: TopicRouter(
            engine: engine, bus: bus, store: store, client: client, node: node, isPrimary: isPrimary, coordination: coordination,
            discovery: discovery, deadline: shutdownDeadline, info: NodeInfo(started: engine.clock.now), logger: logger,
            onReady: {
                let notifier = SystemdNotifier()
                notifier.ready()
                notifier.status("ready: connected to \(endpoint)")
                logger.info("ready: connected to \(endpoint), topics under \(base)/\(primary ? "; try: housectl say \"good morning house\"" : "")")
                readiness.fulfill(())
            }), serviceName: "topic-api"))
        list.append(.init(service: SystemdService(notifier: SystemdNotifier()), successTerminationBehavior: .ignore,
                          serviceName: "systemd"))
        // Last, so the first told: the deadline starts with the shutdown.
        list.append(.init(service: ShutdownService(deadline: shutdownDeadline), successTerminationBehavior: .ignore,
                          serviceName: "shutdown-deadline"))
        return list
    }

    /// Runs every service until SIGTERM/SIGINT (or `shutdown()`), then shuts down gracefully:
    /// finishes the message in hand, applies the relays' shutdown policies, commits the state,
    /// publishes `offline` (best effort), stops the embedded broker and closes the database. The
    /// steps that wait on the broker take their time from `shutdownDeadline`, so a broker that
    /// is gone or hangs cannot hold the shutdown past its budget.
    ///
    /// - Parameter exitIfStuck: for a process of its own (`housectl serve`): should the shutdown
    ///   still be going when the budget is up, or a second SIGTERM/SIGINT come, commit the state,
    ///   release the relay lines per their shutdown policy and exit the process with
    ///   `ShutdownDeadline.forcedExitStatus`. Never in tests that run the controller in-process.
    /// - Parameter adding: services of this node built on the controller (the page), started after
    ///   the controller's own sources of commands and stopped before them.
    public func run(signals: [UnixSignal] = [.sigterm, .sigint], exitIfStuck: Bool = false,
                    adding extra: [ServiceGroupConfiguration.ServiceConfiguration] = []) async throws {
        if exitIfStuck {
            let (relayLayout, chip, store, clock, logger) = (self.relayLayout, self.chip, self.store, self.clock, self.logger)
            shutdownDeadline.enforce(signals: signals.map(\.rawValue)) {
                let switchedOff = relayLayout.flatMap { layout in chip.map { RelayBank.releaseLinesForExit(layout: layout, chip: $0) } } ?? []
                for device in switchedOff {
                    logger.info("shutdown: \(device): switched OFF (forced exit)")
                    do { try store.saveRelayState(device: device, state: .off, at: clock.now.date) } catch { logger.error("\(error)") }
                }
                do { try store.flushPending() } catch { logger.error("\(error)") }
            }
        }
        var list = services
        // Before the systemd notifier and the shutdown deadline, which stay last.
        list.insert(contentsOf: extra, at: max(0, list.count - 2))
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: list, gracefulShutdownSignals: signals, logger: logger))
        groupBox.set(group)
        defer {
            do { try store.saveLastActive(clock.now.date) } catch { logger.error("\(error)") }
            do { try store.close() } catch { logger.error("\(error)") }
            shutdownDeadline.finish()
            logger.info("stopped")
        }
        try await group.run()
    }

    private let groupBox = GroupBox()

    /// The kernel's id of this boot, nil where there is none (not Linux).
    static func currentBootID() -> String? {
        (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Carries out `intent` as a command on the bus (in turn with every other source) and
    /// answers it: the way in for code that holds the controller (the CLI goes through MQTT).
    public func submit(_ intent: HouseIntent, source: IntentSource, answers: IntentAnswers = .none) async -> IntentReply {
        await bus.submit(.intent(intent, source: source, answers: answers, requestID: nil))
    }

    /// Carries out an `intent/request` (a phrase, a typed intent, a history query) as a command on
    /// the bus, as if it came on the request topic from `source`, and answers it.
    public func submit(_ request: IntentRequest, source: IntentSource) async -> IntentReply {
        await bus.submit(.request(request, source: source), id: request.id)
    }

    /// Starts a graceful shutdown (as SIGTERM does).
    public func shutdown() async {
        await groupBox.get()?.triggerGracefulShutdown()
    }

    /// Returns once the controller is connected and has published its retained state.
    public func waitUntilReady() async {
        _ = await readiness.wait()
    }
}

/// Holds the running service group for `shutdown()`.
private final class GroupBox: Sendable {
    private let group = Mutex<ServiceGroup?>(nil)
    func set(_ g: ServiceGroup) { group.withLock { $0 = g } }
    func get() -> ServiceGroup? { group.withLock { $0 } }
}
