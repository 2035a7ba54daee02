import MQTTTopics
import Foundation
import HouseCore
import HouseMQTT
import Logging
import ServiceLifecycle

/// The router, where MQTT comes in: it subscribes to the topic API (device `set` topics of this
/// node's relays, and on every node that may
/// coordinate the mode, intent requests, remote devices' topics and the rules' topics (what
/// comes there is carried out only by the node that coordinates; between two coordinators it is
/// held for the next one); Home Assistant discovery (re-sent when Home Assistant comes online,
/// stale entities cleared), reads each message into a `HouseCommand` on the MQTT thread and
/// offers it to the bus. After every (re)connect it has the engine publish the retained state
/// again, then discovery, then the node's `online`.
///
/// On graceful shutdown it stops taking messages; a message being handled is finished first.
struct TopicRouter: Service {
    let engine: HouseEngine
    /// Where every command and state change goes (see `CommandBus`).
    let bus: CommandBus
    /// Where the discovery topics of earlier runs are kept.
    let store: StateStore
    let client: MQTTClient
    let node: NodeID
    /// Whether this is the first node (the house's energy).
    let isPrimary: Bool
    /// Whether this node coordinates the house now.
    let coordination: Coordination
    /// Commands for the coordinator held while no node coordinates.
    let inbox = CoordinatorInbox()
    let discovery: HomeAssistantDiscovery?
    /// Bounds the waits on the broker at shutdown.
    let deadline: ShutdownDeadline
    /// What the node says about itself after every connect.
    let info: NodeInfo
    let logger: Logger
    /// Called once the first connect's state has been published.
    let onReady: @Sendable () -> Void

    var configuration: HouseConfiguration { engine.configuration }
    var layout: TopicLayout { engine.layout }

    /// The devices whose `set` topic this node answers.
    var ownedDevices: [Device] {
        configuration.devices.filter { d in
            switch d.endpoint {
            case .relay, .cover, .opener: d.node == node
            case .mqtt, .none: coordination.isCandidate  // carried out by the coordinator
            case .sensor, .input: false  // read only: no set topic
            }
        }
    }

    func run() async throws {
        var subscriptions: [MQTTSubscription] = []
        for device in ownedDevices {
            subscriptions.append(try await subscribe(layout.deviceSet(room: device.room, device: device.id), .deviceSet(device)))
            if device.motor != nil {
                subscriptions.append(try await subscribe(layout.devicePositionSet(room: device.room, device: device.id), .positionSet(device)))
            }
        }
        if configuration.devices.contains(where: { $0.node == node }) {
            subscriptions.append(try await subscribe(PeerRelayCommand.topic(base: layout.base, node: node), .peerRelay))
        }
        if coordination.isCandidate {
            subscriptions.append(try await subscribe(layout.modeSet, .modeSet))
            subscriptions.append(try await subscribe(layout.intentRequest, .intentRequest(.mqtt)))
            subscriptions.append(try await subscribe(layout.cliRequest, .intentRequest(.cli)))
            // The states of other nodes' relays, each on its own topic (a wildcard would bring
            // back every state this node publishes, one more message per command).
            for device in configuration.devices {
                if let ref = device.relay, ref.node != node {
                    subscriptions.append(try await subscribe(layout.deviceState(room: device.room, device: device.id), .peerState(device)))
                }
                // Another node's contact or motion sensor: its level, for the primary's answers
                // (its rules run on its own node).
                if let input = device.input, input.node != node, device.kind != .button {
                    subscriptions.append(try await subscribe(layout.deviceState(room: device.room, device: device.id), .peerState(device)))
                }
                // Another node's button: its presses, for what watches the house (Apple Home).
                if let input = device.input, input.node != node, device.kind == .button {
                    subscriptions.append(try await subscribe(layout.deviceEvent(room: device.room, device: device.id), .peerPress(device)))
                }
                // Another node's opener: its state (open, closing, ...), for the primary's answers.
                if let opener = device.opener, opener.node != node {
                    subscriptions.append(try await subscribe(layout.deviceState(room: device.room, device: device.id), .peerOpener(device)))
                }
                // Another node's cover: its position topic (retained JSON-free percent) and state.
                if let motor = device.motor, motor.node != node {
                    subscriptions.append(try await subscribe(layout.devicePosition(room: device.room, device: device.id), .peerCover(device)))
                }
            }
            if configuration.devices.contains(where: { $0.node.map { $0 != node } ?? false }) {
                subscriptions.append(try await subscribe(layout.nodeStatusFilter, .nodeStatus))
            }
            // Topics outside the house tree may be refused by the broker's ACL: that disables the
            // device's state or the rule, not the whole topic API.
            for device in configuration.devices {
                if case .mqtt(let endpoint) = device.endpoint, let topic = endpoint.stateTopic,
                   let s = await optionalSubscription(topic, .remoteState(device, endpoint), for: "the state of \(device.id)") {
                    subscriptions.append(s)
                }
                if case .sensor(let source) = device.endpoint,
                   let s = await optionalSubscription(source.stateTopic, .sensor(device), for: "the value of \(device.id)") {
                    subscriptions.append(s)
                }
            }
            for filter in engine.ruleTopics {
                if let s = await optionalSubscription(filter, .rule, for: "the rules on it") { subscriptions.append(s) }
            }
        }
        if let discovery {
            subscriptions.append(try await subscribe(discovery.statusTopic, .homeAssistantStatus))
            subscriptions.append(try await subscribe(discovery.ownTopicsFilter, .discoveryEcho))
        }
        let states = client.connectionStates()

        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var first = true
                for await state in states {
                    guard case .connected = state else { continue }
                    await publishRetainedState()
                    if first {
                        first = false
                        onReady()
                    }
                }
            }
            // What came for the coordinator while none was: carried out once this node
            // coordinates, dropped once another does.
            group.addTask {
                await coordination.changes.watch { changed in
                    while !Task.isCancelled {
                        if coordination.isActing {
                            let held = inbox.take()
                            if !held.isEmpty { logger.info("coordination: carrying out \(held.count) command(s) held while no node coordinated") }
                            for command in held { command() }
                        } else if !coordination.isInterregnum {
                            let dropped = inbox.take().count
                            if dropped > 0 { logger.info("coordination: \(dropped) held command(s) left to \(coordination.status.coordinator?.rawValue ?? "?")") }
                        }
                        await changed.wait()
                    }
                }
            }
            for subscription in subscriptions {
                group.addTask { await subscription.awaitEnd(logger: logger, what: "the topic API") }
            }
            // Graceful shutdown ends the loops (one loop ending, say a refused subscription, does
            // not). A handler runs to its end on the network thread; unsubscribing stops the calls.
            try? await gracefulShutdown()
            group.cancelAll()
        }
        // Each UNSUBACK is awaited on the shutdown deadline (at most `unsubscribeWait` in all).
        await client.unsubscribe(subscriptions, within: deadline.remaining(atMost: Self.unsubscribeWait))
    }

    /// The most the unsubscribes at shutdown wait for the broker.
    static let unsubscribeWait: Duration = .seconds(1)

    /// Subscribes to `filter` with `handler` called on the MQTT network thread for each message.
    /// A command topic is subscribed with retain-as-published (MQTT 5): a retained command
    /// published while the controller runs arrives marked retained, and is refused like one
    /// waiting at subscribe time.
    private func subscribe(_ filter: String, _ handler: Handler) async throws -> MQTTSubscription {
        let options = MQTTSubscribeOptions(qos: .atLeastOnce, retainAsPublished: handler.isCommand)
        return try await client.subscribe(to: filter, options: options) { message in handle(message, with: handler) }
    }

    /// Subscribes as `subscribe`, or logs why not (a refusal by the broker's ACL, say) and returns nil.
    private func optionalSubscription(_ filter: String, _ handler: Handler, for what: String) async -> MQTTSubscription? {
        do {
            return try await subscribe(filter, handler)
        } catch {
            logger.error("cannot subscribe to \(filter) for \(what): \(error); check the broker's ACL for this user")
            return nil
        }
    }

    enum Handler: Sendable {
        case deviceSet(Device)
        case positionSet(Device)
        case modeSet
        case intentRequest(IntentSource)
        case peerState(Device)
        case peerCover(Device)
        case peerOpener(Device)
        case peerPress(Device)
        case nodeStatus
        case remoteState(Device, MQTTDeviceEndpoint)
        case sensor(Device)
        case peerRelay
        case rule
        case homeAssistantStatus
        case discoveryEcho

        /// How a payload is held to `InputLimits` before the handler reads it. Commands (nil) are
        /// checked by their parsers, which give the reason to the log and to an error reply; the
        /// discovery echo (nil) reads only whether a payload is empty. The other inputs are
        /// ignored with a logged reason past the size limit, the rules' topics also past the
        /// JSON nesting limit (a rule may match a JSON field).
        var limits: Limits? {
            switch self {
            case .deviceSet, .positionSet, .modeSet, .intentRequest, .peerRelay, .discoveryEcho: nil
            case .peerState, .peerCover, .peerOpener, .nodeStatus, .remoteState, .homeAssistantStatus: .size
            case .peerPress, .rule, .sensor: .json
            }
        }

        /// The payload's size, or its size and its JSON nesting (`InputLimits.checkJSON`).
        enum Limits { case size, json }

        /// Whether the topic carries commands (never obeyed when retained).
        var isCommand: Bool {
            switch self {
            case .deviceSet, .positionSet, .modeSet, .intentRequest, .peerRelay: true
            case .peerState, .peerCover, .peerOpener, .peerPress, .nodeStatus, .remoteState, .sensor, .rule, .homeAssistantStatus,
                 .discoveryEcho: false
            }
        }
    }

    /// Handles `message`, on the MQTT network thread: a command is parsed and queued on the bus
    /// (never waiting: beyond the bus's capacity it is refused as busy), and its reply, if the
    /// sender asked for one, is published once the command is committed.
    func handle(_ message: MQTTMessage, with handler: Handler) {
        guard isWithinLimits(message, for: handler) else { return }
        switch handler {
        case .deviceSet(let device):
            guard !Self.isTheCoordinators(device) else {
                forCoordinator(message) { deviceSet(message, device, CommandPayloadParser.deviceCommand) }
                return
            }
            deviceSet(message, device, CommandPayloadParser.deviceCommand)
        case .positionSet(let device): deviceSet(message, device, CommandPayloadParser.positionCommand)
        case .modeSet: forCoordinator(message) { modeSet(message) }
        case .intentRequest(let source): forCoordinator(message) { intentRequest(message, source: source) }
        case .peerState(let device): peerState(message, device)
        case .peerCover(let device): peerCover(message, device)
        case .peerOpener(let device):
            guard let state = message.string.flatMap({ CoverState(rawValue: $0.trimmedWhitespace) }) else { return }
            bus.note(.openerReport(device: device.id, state))
        case .peerPress(let device): peerPress(message, device)
        case .nodeStatus: nodeStatus(message)
        case .remoteState(let device, let endpoint): remoteState(message, device, endpoint)
        case .sensor(let device): bus.note(.sensorMessage(device: device.id, payload: message.payload))
        case .peerRelay: peerRelay(message)
        case .rule: bus.note(.ruleMessage(topic: message.topic, payload: message.payload, retained: message.retain))
        case .homeAssistantStatus:
            if message.string?.trimmedWhitespace == "online" {
                logger.info("Home Assistant is online: sending discovery again")
                publishDiscovery()
            }
        case .discoveryEcho:
            guard let discovery, !message.payload.isEmpty else { return }
            for clear in discovery.clearing(stale: [message.topic]) {
                logger.info("clearing discovery of a removed device: \(clear.topic)")
                publish(clear.topic, clear.payload, retain: true)
            }
        }
    }

    /// Whether a state, status or rule payload is within `InputLimits`; when not, it is ignored and
    /// the reason logged (a warning on the house's own topics, at debug level on the rules' topics,
    /// which other devices share). Commands pass here: their parsers check them.
    private func isWithinLimits(_ message: MQTTMessage, for handler: Handler) -> Bool {
        guard let limits = handler.limits else { return true }
        do throws(MalformedInput) {
            switch limits {
            case .size: try InputLimits.checkPayload(message.payload)
            case .json: try InputLimits.checkJSON(message.payload)
            }
            return true
        } catch {
            let why = "ignored \(DaemonError.malformedPayload(topic: message.topic, reason: error.reason)) (\(InputLimits.excerpt(message.payload)))"
            if case .rule = handler { logger.debug("\(why)") } else { logger.warning("\(why)") }
            return false
        }
    }

    // MARK: Commands

    /// Whether the coordinator answers `device`'s `set` topic (a device of another system reached
    /// over MQTT), not the node that owns its relay.
    static func isTheCoordinators(_ device: Device) -> Bool {
        switch device.endpoint {
        case .mqtt, .none: true
        case .relay, .cover, .opener, .sensor, .input: false
        }
    }

    /// Carries out a command for the coordinator when this node coordinates; holds it while no
    /// node does (for this node, should it take over); leaves it to the coordinator otherwise.
    private func forCoordinator(_ message: MQTTMessage, _ carryOut: @escaping @Sendable () -> Void) {
        if coordination.isActing {
            carryOut()
        } else if coordination.isInterregnum, !message.retain {
            if !inbox.hold(carryOut) { logger.warning("refused the command on \(message.topic): \(CoordinatorInbox.capacity) commands wait for a coordinator") }
        } else {
            logger.debug("\(message.topic): left to the coordinator, \(coordination.status.coordinator?.rawValue ?? "?")")
        }
    }

    /// A command delivered as retained is a stale one waiting at the broker: it is never obeyed,
    /// and it is cleared so that it does not come back at every (re)subscribe.
    private func refuseRetained(_ message: MQTTMessage) -> Bool {
        guard message.retain else { return false }
        guard !message.payload.isEmpty else { return true }
        logger.warning("refused a retained command on \(message.topic): retained commands are never obeyed; clearing it")
        publish(message.topic, "", retain: true)
        return true
    }

    private func deviceSet(_ message: MQTTMessage, _ device: Device,
                           _ parse: ([UInt8], String) throws(DaemonError) -> DeviceSetCommand) {
        guard let command = accept(message, parse) else { return }
        // Most commands are a plain ON or OFF that nobody waits for: no answer to carry (or keep
        // in memory while it waits its turn) unless there is a reply topic or a question to log.
        var answer: (@Sendable (IntentReply) -> Void)? = nil
        let route = ReplyRoute(jsonReplyTo: command.replyTo, message: message, logger: logger)
        let intent = command.intent(for: device)
        if route != nil || device.confirm {
            answer = { (reply: IntentReply) in
                if reply.status == .needsConfirmation {
                    logger.warning("\(device.id) needs confirmation: send {\"state\":\"\(command.action.rawValue.uppercased())\",\"confirm\":true}")
                }
                if let route { self.reply(reply, id: command.id, to: route) }
            }
        }
        offer(.intent(intent, source: .mqtt, answers: IntentAnswers(confirmed: command.confirmed), requestID: command.id),
              from: message, id: command.id, answer: answer)
    }

    private func modeSet(_ message: MQTTMessage) {
        guard let command = accept(message, CommandPayloadParser.modeCommand) else { return }
        let intent = command.intent
        var answer: (@Sendable (IntentReply) -> Void)? = nil
        if let route = ReplyRoute(jsonReplyTo: command.replyTo, message: message, logger: logger) {
            answer = { (reply: IntentReply) in self.reply(reply, id: command.id, to: route) }
        }
        offer(.intent(intent, source: .mqtt, answers: .none, requestID: command.id), from: message, id: command.id, answer: answer)
    }

    private func intentRequest(_ message: MQTTMessage, source: IntentSource) {
        guard let request = accept(message, CommandPayloadParser.intentRequest) else { return }
        let route = ReplyRoute(jsonReplyTo: request.replyTo, message: message, logger: logger)
            ?? ReplyRoute(topic: layout.intentResponse(id: request.id))
        offer(.request(request, source: source), from: message, id: request.id) { answer in
            reply(answer, to: route)
        }
    }

    /// A relay command from the controller that resolved the intent (see `PeerRelayCommand`): on
    /// the bus like every command, carried out through this node's relay seam.
    private func peerRelay(_ message: MQTTMessage) {
        guard !refuseRetained(message) else { return }
        let command: PeerRelayCommand
        do {
            command = try PeerRelayCommand.parse(message.payload)
        } catch {
            logger.warning("refused: \(DaemonError.malformedPayload(topic: message.topic, reason: error.reason))")
            return
        }
        offer(.peerRelay(command), from: message, id: nil, answer: nil)
    }

    /// Queues `command` on the bus (never holding the MQTT thread); a command refused there (too
    /// many waiting, or shutting down) is logged, and answered where `answer` says.
    private func offer(_ command: HouseCommand, from message: MQTTMessage, id: String?,
                       answer: (@Sendable (IntentReply) -> Void)?) {
        // A command with a message expiry (MQTT 5) is not carried out once it has run out.
        let expires = message.properties.messageExpiryInterval.map { engine.clock.monotonic.now.advanced(by: .seconds(Int64($0))) }
        if let refusal = bus.offer(command, id: id ?? "", expires: expires, answer: answer) {
            logger.warning("refused the command on \(message.topic): \(refusal.error ?? refusal.dialog)")
        }
    }

    /// Parses a command, refusing a retained one; a malformed one is logged and, when the
    /// sender named a reply topic (or an id), answered with the reason. Nil when refused.
    private func accept<Command>(
        _ message: MQTTMessage, _ parse: ([UInt8], String) throws(DaemonError) -> Command
    ) -> Command? {
        guard !refuseRetained(message) else { return nil }
        do {
            return try parse(message.payload, message.topic)
        } catch {
            logger.warning("refused: \(error)")
            if let target = CommandPayloadParser.replyTarget(message.payload, layout: layout) {
                reply(IntentReply(id: target.id, error: error.description), to: ReplyRoute(topic: target.topic))
            } else if let route = ReplyRoute(jsonReplyTo: nil, message: message, logger: logger) {
                reply(IntentReply(id: "", error: error.description), to: route)
            }
            return nil
        }
    }

    /// Publishes `reply` where it was asked for: the JSON `reply_to`, or the MQTT 5 response
    /// topic with the request's correlation data. On MQTT 5 it also carries `status` (and, when not
    /// done, `reason`) as user properties, for flows that route on them without parsing JSON.
    private func reply(_ reply: IntentReply, to route: ReplyRoute) {
        var properties = MQTTPublishProperties(correlationData: route.correlation, contentType: "application/json",
                                               payloadFormatIndicator: .utf8)
        properties.userProperties = [MQTTUserProperty("status", reply.status.rawValue)]
        if reply.status != .done, !reply.dialog.isEmpty {
            properties.userProperties.append(MQTTUserProperty("reason", String(reply.dialog.prefix(256))))
        }
        client.send(MQTTMessage(topic: route.topic, string: reply.json, qos: .atLeastOnce, properties: properties), loggingFailuresTo: logger)
    }

    /// A reply to a `set` that asked for one, under the command's id (a fresh one when it gave none).
    private func reply(_ answer: IntentReply, id: String?, to route: ReplyRoute) {
        var answer = answer
        if answer.id.isEmpty { answer.id = id ?? UUID().uuidString }
        reply(answer, to: route)
    }

    // MARK: State from elsewhere

    /// Another node's relay state: keeps the primary's view complete.
    private func peerState(_ message: MQTTMessage, _ device: Device) {
        guard let text = message.string, let state = DeviceState(rawValue: text.trimmedWhitespace) else { return }
        bus.note(.stateReport(device: device.id, state: state, retained: message.retain, mirror: false))
    }

    /// Another node's cover moved: its position (and whether it is assumed, from the JSON the
    /// owner also publishes there) keeps the primary's answers right.
    private func peerCover(_ message: MQTTMessage, _ device: Device) {
        guard let text = message.string?.trimmedWhitespace, let position = Int(text), (0...100).contains(position) else {
            logger.debug("\(device.id): position payload \(message.string?.prefix(40) ?? "") is not 0-100")
            return
        }
        bus.note(.coverReport(device: device.id, CoverReport(state: position == 0 ? .closed : (position == 100 ? .open : .stopped),
                                                              position: position, assumed: false)))
    }

    /// Another node's button was pressed: `{"event_type":"single"}` on its event topic (never
    /// retained; a retained one is an old press and is ignored).
    private func peerPress(_ message: MQTTMessage, _ device: Device) {
        guard !message.retain else { return }
        guard let fields = (try? JSONValue(parsing: message.payload))?.object, let kind = fields["event_type"]?.string,
              let press = ButtonPress(rawValue: kind) else {
            logger.debug("\(device.id): event payload \(InputLimits.excerpt(message.payload)) is not {\"event_type\": single, double or long}")
            return
        }
        bus.note(.pressReport(device: device.id, press))
    }

    /// Another node's status (retained; its birth message and last will): while it is offline,
    /// commands for its relays are refused with that reason instead of answered as done.
    private func nodeStatus(_ message: MQTTMessage) {
        guard let status = layout.parseNodeStatus(message), status.node != node,
              configuration.nodes.contains(where: { $0.id == status.node }) else { return }
        guard let online = status.online else {
            logger.debug("node \(status.node): status payload \(status.text.prefix(40)) is neither online nor offline")
            return
        }
        bus.note(.nodeStatus(node: status.node, online: online))
        logger.info("node \(status.node) is \(status.text)")
    }

    /// A device that lives elsewhere reported its state: follow it and mirror it on our state topic.
    private func remoteState(_ message: MQTTMessage, _ device: Device, _ endpoint: MQTTDeviceEndpoint) {
        let text = message.string?.trimmedWhitespace ?? ""
        let state: DeviceState
        if text == endpoint.payloadOn { state = .on } else if text == endpoint.payloadOff { state = .off } else {
            logger.debug("\(device.id): state payload \(text.prefix(40)) is neither \(endpoint.payloadOn) nor \(endpoint.payloadOff)")
            return
        }
        bus.note(.stateReport(device: device.id, state: state, retained: message.retain, mirror: true))
    }

    // MARK: Retained state

    /// After every CONNACK: the retained states, the mode and energy (primary), discovery, the
    /// node's info, then its `online` status.
    func publishRetainedState() async {
        _ = await bus.submit(.republish)
        publishDiscovery()
        client.send(MQTTMessage(topic: layout.nodeInfo(node: node), string: info.json, qos: .atLeastOnce, retain: true), loggingFailuresTo: logger)
        // Only now, after the real states (in order behind them): a node that says `online`
        // before its states would show the broker's old ones as current (Home Assistant fired
        // automations on a restart's stale "on"). Acknowledged, it says the broker has the
        // states and discovery: whoever subscribes once the controller is ready finds them.
        do {
            try await client.publish(MQTTMessage(topic: layout.nodeStatus(node: node), string: "online", qos: .atLeastOnce, retain: true))
        } catch {
            logger.warning("publish \(layout.nodeStatus(node: node)) failed: \(error)")
        }
    }

    /// Publishes discovery. The entities an earlier run published that the configuration no
    /// longer produces (a removed device, a changed domain) are cleared first, from the topics
    /// recorded in the state store: the broker may have forgotten them (the embedded broker keeps
    /// no retained messages across its restarts) while Home Assistant still has the entities.
    func publishDiscovery() {
        guard let discovery else { return }
        let messages = discovery.messages
        let topics = messages.map(\.topic)
        do {
            let previous = try store.discoveryTopics()
            for clear in discovery.clearing(stale: Set(previous)) {
                logger.info("clearing discovery of a removed entity: \(clear.topic)")
                publish(clear.topic, clear.payload, retain: true)
            }
            if previous != topics { try store.saveDiscoveryTopics(topics) }
        } catch {
            logger.error("\(error)")
        }
        for message in messages {
            publish(message.topic, message.payload, retain: true)
        }
    }

    private func publish(_ topic: String, _ payload: String, retain: Bool) {
        client.send(MQTTMessage(topic: topic, string: payload, qos: .atLeastOnce, retain: retain), loggingFailuresTo: logger)
    }
}
