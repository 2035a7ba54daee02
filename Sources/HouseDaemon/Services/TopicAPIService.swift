import Foundation
import HouseCore
import HouseGPIO
import HouseMQTT
import Logging
import ServiceLifecycle

/// The MQTT topic API: device `set` topics of this node's relays, and on the primary node the
/// mode, intent requests, remote devices' state topics and the rules' topics; Home Assistant
/// discovery (re-sent when Home Assistant comes online, stale entities cleared). After every
/// (re)connect it publishes the retained state again.
///
/// On graceful shutdown it stops taking messages; a message being handled is finished first.
struct TopicAPIService: Service {
    let gateway: IntentGateway
    /// Where every command and state change goes (see `CommandBus`).
    let bus: CommandBus
    let client: MQTTClient
    let node: NodeID
    let isPrimary: Bool
    let discovery: HomeAssistantDiscovery?
    let relayStates: @Sendable () async -> [DeviceID: DeviceState]
    /// Bounds the waits on the broker at shutdown.
    let deadline: ShutdownDeadline
    let logger: Logger
    /// Called once the first connect's state has been published.
    let onReady: @Sendable () -> Void

    var configuration: HouseConfiguration { gateway.configuration }
    var layout: TopicLayout { gateway.layout }

    /// The devices whose `set` topic this node answers.
    var ownedDevices: [Device] {
        configuration.devices.filter { d in
            switch d.endpoint {
            case .relay(let ref): ref.node == node
            case .mqtt, .none: isPrimary
            }
        }
    }

    func run() async throws {
        var subscriptions: [(MQTTSubscription, Handler)] = []
        for device in ownedDevices {
            let topic = layout.deviceSet(room: device.room, device: device.id)
            subscriptions.append((try await client.subscribe(to: topic, qos: .atLeastOnce), .deviceSet(device)))
        }
        if configuration.devices.contains(where: { $0.relay?.node == node }) {
            let topic = PeerRelayCommand.topic(base: layout.base, node: node)
            subscriptions.append((try await client.subscribe(to: topic, qos: .atLeastOnce), .peerRelay))
        }
        if isPrimary {
            subscriptions.append((try await client.subscribe(to: layout.modeSet, qos: .atLeastOnce), .modeSet))
            subscriptions.append((try await client.subscribe(to: layout.intentRequest, qos: .atLeastOnce), .intentRequest(.mqtt)))
            subscriptions.append((try await client.subscribe(to: layout.cliRequest, qos: .atLeastOnce), .intentRequest(.cli)))
            subscriptions.append((try await client.subscribe(to: "\(layout.base)/+/+/state", qos: .atLeastOnce), .peerState))
            if configuration.devices.contains(where: { $0.relay.map { $0.node != node } ?? false }) {
                subscriptions.append((try await client.subscribe(to: layout.nodeStatusFilter, qos: .atLeastOnce), .nodeStatus))
            }
            // Topics outside the house tree may be refused by the broker's ACL: that disables the
            // device's state or the rule, not the whole topic API.
            for device in configuration.devices {
                if case .mqtt(let endpoint) = device.endpoint, let topic = endpoint.stateTopic {
                    if let s = await optionalSubscription(topic, for: "the state of \(device.id)") {
                        subscriptions.append((s, .remoteState(device, endpoint)))
                    }
                }
            }
            for filter in gateway.ruleTopics {
                if let s = await optionalSubscription(filter, for: "the rules on it") { subscriptions.append((s, .rule)) }
            }
        }
        if let discovery {
            subscriptions.append((try await client.subscribe(to: discovery.statusTopic, qos: .atLeastOnce), .homeAssistantStatus))
            subscriptions.append((try await client.subscribe(to: discovery.ownTopicsFilter, qos: .atLeastOnce), .discoveryEcho))
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
            for (subscription, handler) in subscriptions {
                group.addTask {
                    // Commands are queued on the bus in the order they came; their answers are
                    // waited for out of line, so the next message is read at once. A discarding
                    // group: a task that has answered is freed at once (a plain group keeps every
                    // finished child until its result is read: one per message, without bound).
                    await withDiscardingTaskGroup { answers in
                        do {
                            for try await message in subscription {
                                if let answer = await handle(message, with: handler) { answers.addTask(operation: answer) }
                            }
                        } catch {
                            // A refused subscription (the broker's ACL) ends only its own topic.
                            logger.error("subscription to \(subscription.filter) ended: \(error); check the broker's ACL for this user")
                        }
                    }
                }
            }
            // Graceful shutdown ends the loops (one loop ending, say a refused subscription, does
            // not); a message being handled is finished first, as handlers do not stop half-way
            // on cancellation.
            try? await gracefulShutdown()
            group.cancelAll()
        }
        // Each UNSUBACK is awaited on the shutdown deadline (at most `unsubscribeWait` in all): a
        // broker that stopped answering must not hold the shutdown.
        let ending = subscriptions.map(\.0)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for subscription in ending { try? await client.unsubscribe(subscription) }
            }
            group.addTask { [deadline] in try? await Task.sleep(for: deadline.remaining(atMost: Self.unsubscribeWait)) }
            await group.next()
            group.cancelAll()
        }
    }

    /// The most the unsubscribes at shutdown wait for the broker.
    static let unsubscribeWait: Duration = .seconds(1)

    /// Subscribes to `filter`, or logs why not (a refusal by the broker's ACL, say) and returns nil.
    private func optionalSubscription(_ filter: String, for what: String) async -> MQTTSubscription? {
        do {
            return try await client.subscribe(to: filter, qos: .atLeastOnce)
        } catch {
            logger.error("cannot subscribe to \(filter) for \(what): \(error); check the broker's ACL for this user")
            return nil
        }
    }

    enum Handler: Sendable {
        case deviceSet(Device)
        case modeSet
        case intentRequest(IntentSource)
        case peerState
        case nodeStatus
        case remoteState(Device, MQTTDeviceEndpoint)
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
            case .deviceSet, .modeSet, .intentRequest, .peerRelay, .discoveryEcho: nil
            case .peerState, .nodeStatus, .remoteState, .homeAssistantStatus: .size
            case .rule: .json
            }
        }

        /// The payload's size, or its size and its JSON nesting (`InputLimits.checkJSON`).
        enum Limits { case size, json }
    }

    /// Handles `message`; for a command queued on the bus, what is left to do once it is answered
    /// (the reply), to be run out of line.
    func handle(_ message: MQTTMessage, with handler: Handler) async -> (@Sendable () async -> Void)? {
        guard isWithinLimits(message, for: handler) else { return nil }
        switch handler {
        case .deviceSet(let device): return await deviceSet(message, device)
        case .modeSet: return await modeSet(message)
        case .intentRequest(let source): return await intentRequest(message, source: source)
        case .peerState: await peerState(message)
        case .nodeStatus: await nodeStatus(message)
        case .remoteState(let device, let endpoint): await remoteState(message, device, endpoint)
        case .peerRelay: return await peerRelay(message)
        case .rule: bus.note(.ruleMessage(message))
        case .homeAssistantStatus:
            if message.string?.trimmingCharacters(in: .whitespacesAndNewlines) == "online" {
                logger.info("Home Assistant is online: sending discovery again")
                await publishDiscovery()
            }
        case .discoveryEcho:
            guard let discovery, !message.payload.isEmpty else { return nil }
            for clear in discovery.clearing(stale: [message.topic]) {
                logger.info("clearing discovery of a removed device: \(clear.topic)")
                await gateway.publish(clear.topic, clear.payload, retain: true)
            }
        }
        return nil
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

    /// A command delivered as retained is a stale one waiting at the broker: it is never obeyed,
    /// and it is cleared so that it does not come back at every (re)subscribe.
    private func refuseRetained(_ message: MQTTMessage) async -> Bool {
        guard message.retain else { return false }
        guard !message.payload.isEmpty else { return true }
        logger.warning("refused a retained command on \(message.topic): retained commands are never obeyed; clearing it")
        await gateway.publish(message.topic, "", retain: true)
        return true
    }

    private func deviceSet(_ message: MQTTMessage, _ device: Device) async -> (@Sendable () async -> Void)? {
        guard let command = await accept(message, CommandPayloadParser.deviceCommand) else { return nil }
        // A door or valve worked by ON/OFF switches (Home Assistant's switch) means open/close.
        var action = command.action
        let supported = device.kind.supportedActions
        if !supported.contains(action) {
            if action == .on, supported.contains(.open) { action = .open }
            if action == .off, supported.contains(.close) { action = .close }
        }
        let intent = HouseIntent.control(HouseControlIntent(room: device.room.rawValue, action: action, device: device.id.rawValue))
        let pending = await bus.enqueue(.intent(intent, source: .mqtt, answers: IntentAnswers(confirmed: command.confirmed),
                                          requestID: command.id), id: command.id ?? "")
        return {
            guard let answer = await pending.wait() else { return }
            if answer.status == .needsConfirmation {
                logger.warning("\(device.id) needs confirmation: send {\"state\":\"\(command.action.rawValue.uppercased())\",\"confirm\":true}")
            }
            if let replyTo = command.replyTo { await reply(answer, id: command.id, to: replyTo) }
        }
    }

    private func modeSet(_ message: MQTTMessage) async -> (@Sendable () async -> Void)? {
        guard let command = await accept(message, CommandPayloadParser.modeCommand) else { return nil }
        let intent = HouseIntent.setMode(SetHouseModeIntent(mode: command.mode, duration: command.duration, rooms: command.rooms))
        let pending = await bus.enqueue(.intent(intent, source: .mqtt, answers: .none, requestID: command.id), id: command.id ?? "")
        return {
            guard let answer = await pending.wait(), let replyTo = command.replyTo else { return }
            await reply(answer, id: command.id, to: replyTo)
        }
    }

    private func intentRequest(_ message: MQTTMessage, source: IntentSource) async -> (@Sendable () async -> Void)? {
        guard let request = await accept(message, CommandPayloadParser.intentRequest) else { return nil }
        let pending = await bus.enqueue(.request(request, source: source), id: request.id)
        return {
            guard let answer = await pending.wait() else { return }
            await reply(answer, to: request.replyTo ?? layout.intentResponse(id: request.id))
        }
    }

    /// A relay command from the controller that resolved the intent (see `PeerRelayCommand`): on
    /// the bus like every command, carried out through this node's relay seam.
    private func peerRelay(_ message: MQTTMessage) async -> (@Sendable () async -> Void)? {
        guard await !refuseRetained(message) else { return nil }
        let command: PeerRelayCommand
        do {
            command = try PeerRelayCommand.parse(message.payload)
        } catch {
            logger.warning("refused: \(DaemonError.malformedPayload(topic: message.topic, reason: error.reason))")
            return nil
        }
        let pending = await bus.enqueue(.peerRelay(command))
        return { [logger, node] in
            guard let answer = await pending.wait() else { return }
            if answer.status == .unsupported {
                logger.warning("refused: relay command for \(command.device), which is not a relay of node \(node)")
            } else {
                logger.info("relay command from a peer: \(command.device): \(answer.dialog)")
            }
        }
    }

    /// Parses a command, refusing a retained one; a malformed one is logged and, when the
    /// sender named a reply topic (or an id), answered with the reason. Nil when refused.
    private func accept<Command>(
        _ message: MQTTMessage, _ parse: ([UInt8], String) throws(DaemonError) -> Command
    ) async -> Command? {
        guard await !refuseRetained(message) else { return nil }
        do {
            return try parse(message.payload, message.topic)
        } catch {
            logger.warning("refused: \(error)")
            if let target = CommandPayloadParser.replyTarget(message.payload, layout: layout) {
                await reply(IntentReply(id: target.id, error: error.description), to: target.topic)
            }
            return nil
        }
    }

    private func reply(_ reply: IntentReply, to topic: String) async {
        await gateway.publish(topic, reply.json, retain: false)
    }

    /// A reply to a `set` that asked for one, under the command's id (a fresh one when it gave none).
    private func reply(_ answer: IntentReply, id: String?, to topic: String) async {
        var answer = answer
        if answer.id.isEmpty { answer.id = id ?? UUID().uuidString }
        await reply(answer, to: topic)
    }

    // MARK: State from elsewhere

    /// Another node's relay state (and our own, echoed): keeps the primary's view complete.
    private func peerState(_ message: MQTTMessage) async {
        let parts = message.topic.split(separator: "/")
        guard parts.count >= 2, let device = configuration.device(id: DeviceID(String(parts[parts.count - 2]))),
              let text = message.string, let state = DeviceState(rawValue: text.trimmingCharacters(in: .whitespaces))
        else { return }
        if let ref = device.relay, ref.node == node { return }
        bus.note(.stateChanged(device: device.id, state: state, note: true, rules: message.retain ? .never : .ifChanged))
    }

    /// Another node's status (retained; its birth message and last will): while it is offline,
    /// commands for its relays are refused with that reason instead of answered as done.
    private func nodeStatus(_ message: MQTTMessage) async {
        let parts = message.topic.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 2, parts.last == "status" else { return }
        let other = NodeID(String(parts[parts.count - 2]))
        guard other != node, configuration.nodes.contains(where: { $0.id == other }) else { return }
        let text = message.string?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard text == "online" || text == "offline" else {
            logger.debug("node \(other): status payload \(text.prefix(40)) is neither online nor offline")
            return
        }
        bus.note(.nodeStatus(node: other, online: text == "online"))
        logger.info("node \(other) is \(text)")
    }

    /// A device that lives elsewhere reported its state: follow it and mirror it on our state topic.
    private func remoteState(_ message: MQTTMessage, _ device: Device, _ endpoint: MQTTDeviceEndpoint) async {
        let text = message.string?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let state: DeviceState
        if text == endpoint.payloadOn { state = .on } else if text == endpoint.payloadOff { state = .off } else {
            logger.debug("\(device.id): state payload \(text.prefix(40)) is neither \(endpoint.payloadOn) nor \(endpoint.payloadOff)")
            return
        }
        bus.note(.stateChanged(device: device.id, state: state, note: true, rules: message.retain ? .never : .ifChanged))
        await gateway.publish(layout.deviceState(room: device.room, device: device.id), state.rawValue, retain: true)
    }

    // MARK: Retained state

    func publishRetainedState() async {
        let states = await relayStates()
        for (id, state) in states.sorted(by: { $0.key < $1.key }) {
            if let d = configuration.device(id: id) {
                await gateway.publish(layout.deviceState(room: d.room, device: id), state.rawValue, retain: true)
            }
        }
        if isPrimary {
            await gateway.publishMode()
            await gateway.publishEnergy(force: true)
        }
        await publishDiscovery()
    }

    func publishDiscovery() async {
        guard let discovery else { return }
        for message in discovery.messages() {
            await gateway.publish(message.topic, message.payload, retain: true)
        }
    }
}
