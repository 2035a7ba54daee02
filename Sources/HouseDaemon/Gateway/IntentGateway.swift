import Foundation
import HouseCore
import HouseGPIO
import HouseMQTT
import Signals
import Logging

/// The one path into the house. The CLI (through `intent/request`), MQTT `set` topics, routines
/// and rules all reach `process` through the `CommandBus`, whose one consumer calls `perform`:
/// it runs the intent pipeline, then records the history, saves and publishes a changed mode,
/// publishes the donation on `events` and fires the rules that the change triggers. The bus
/// hands it one command at a time, in order (the actor alone would let a second intent run in
/// the middle of the first at each of its awaits).
public actor IntentGateway {
    public nonisolated let configuration: HouseConfiguration
    /// The house service's lane (see `EngineExecutor`): the gateway, the service, the relay bank
    /// and the bus's consumer run on it, one job at a time.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { service.executor.asUnownedSerialExecutor() }
    public nonisolated let service: HouseService
    public nonisolated let layout: TopicLayout
    /// Each device's state topic, made once (see `publishState`).
    nonisolated let stateTopics: [DeviceID: String]
    let pipeline: IntentPipeline
    nonisolated let store: StateStore
    nonisolated let client: MQTTClient
    /// Where the house's events go out (`<base>/events`), held back while nobody listens.
    public nonisolated let events: EventOutlet
    nonisolated let clock: any WallClock
    nonisolated let logger: Logger
    let matcher: PhraseMatcher?
    /// Whether this is the first node, which keeps and publishes the house's energy.
    nonisolated let isPrimary: Bool
    /// Whether this node coordinates the house now: it runs the rules, keeps the modes and
    /// publishes the house-level state only then.
    nonisolated let coordination: Coordination
    var rules: RuleBook
    /// The devices whose state a rule watches (`RuleBook.stateWatchedDevices`): a relay edge of
    /// any other device is nothing for the rules.
    nonisolated let stateWatchedDevices: Set<DeviceID>
    var modeObservers: [@Sendable (Date?) -> Void] = []
    /// The energy figure last published: an unchanged figure is not sent again (after a
    /// reconnect it is, with `force`).
    var lastEnergy: String?
    /// Told when something switched on the primary node and the house's energy figure may have
    /// moved: `EnergyService` publishes it at most once a second, the last move always included,
    /// instead of every command computing it.
    nonisolated let energyMoved = WakeSignal()
    /// The same per metered device.
    var lastDeviceEnergy: [DeviceID: String] = [:]
    /// The latest replies by request id, oldest first in `recentReplyOrder` (see `perform`).
    var recentReplies: [String: IntentReply] = [:]
    var recentReplyOrder: [String] = []
    /// Told when an opener's state is published (a press may have set a new deadline).
    nonisolated let openerWake = WakeSignal()
    /// A request id seen within this window is a repeat.
    static let commandWindow: Duration = .seconds(600)

    init(configuration: HouseConfiguration, service: HouseService, store: StateStore, client: MQTTClient,
         layout: TopicLayout, matcher: PhraseMatcher?, isPrimary: Bool, coordination: Coordination,
         clock: any WallClock, logger: Logger) {
        self.configuration = configuration
        self.service = service
        self.pipeline = IntentPipeline(service: service)
        self.store = store
        self.client = client
        self.events = EventOutlet(topic: layout.events, client: client, logger: logger)
        self.layout = layout
        self.stateTopics = Dictionary(configuration.devices.map { ($0.id, layout.deviceState(room: $0.room, device: $0.id)) }) { a, _ in a }
        self.matcher = matcher
        self.isPrimary = isPrimary
        self.coordination = coordination
        self.clock = clock
        self.logger = logger
        let rules = RuleBook(rules: configuration.rules)
        self.rules = rules
        self.stateWatchedDevices = rules.stateWatchedDevices
    }

    /// Calls `observer` with the instant the next temporary mode ends whenever the modes change
    /// (the routine runner sleeps until then and puts the revert on the bus).
    func onModeExpiryChange(_ observer: @escaping @Sendable (Date?) -> Void) {
        modeObservers.append(observer)
    }

    // MARK: The one path

    /// Resolves, confirms and handles `intent` from `source`, then records and publishes what
    /// changed. `ruleDepth` counts how many rules led here (loop protection).
    @discardableResult
    func process(_ intent: HouseIntent, source: IntentSource, answers: IntentAnswers = .none,
                        requestID: String? = nil, commandID: String? = nil, ruleDepth: Int = 0) async -> IntentOutcome {
        let before = await service.modeSnapshot
        let outcome = await pipeline.process(intent, source: source, answers: answers, commandID: commandID ?? requestID)
        // The relay has switched and its state is published (on the MQTT thread, an idle engine,
        // already written). The event follows from the same thread, before it goes back to
        // reading, instead of arriving while the broker forwards the next command.
        let donation = outcome.status == .done ? await service.lastDonation : nil
        if let donation { events.publish(.donation(donation)) }
        // That thread goes back to its connection; the record, the mode diff and the rules go on
        // on a worker.
        await service.executor.leaveInlineThread()
        let now = clock.now.date
        record(outcome, at: now, requestID: requestID)
        if donation != nil {
            if isPrimary { energyMoved.signal() }
        } else if outcome.status != .done, !outcome.dryRun {
            switch intent {
            case .control: await notCarriedOut(outcome, at: now)
            // A mode not set (Home Assistant's select offered `mixed`, say): the true mode again.
            case .setMode where coordination.isActing: await publishMode()
            case .setMode, .query, .runRoutine: break
            }
        }
        await modesChanged(from: before, at: now, ruleDepth: ruleDepth)
        if outcome.status != .done {
            logger.info("\(source.rawValue) \(intent): \(outcome.status.rawValue): \(outcome.dialog)")
        }
        return outcome
    }

    /// Matches `text` against the phrase templates and processes every command it holds
    /// ("... and ..."). Real ambiguity becomes a question; text that matches nothing is answered
    /// with the closest phrases known.
    func process(text: String, source: IntentSource, answers: IntentAnswers = .none,
                        requestID: String? = nil) async -> Result<[PhraseRun.Step], PhraseRefusal> {
        guard let matcher else {
            return .failure(PhraseRefusal(status: .unsupported, dialog: "This controller has no phrase templates loaded."))
        }
        let run = await PhraseRun.run(matcher.interpret(text), answers: answers) { intent in
            await process(intent, source: source, answers: answers, requestID: requestID)
        }
        switch run.end {
        case .processed:
            return .success(run.steps)
        case .notUnderstood(let message):
            return .failure(PhraseRefusal(status: .unsupported, dialog: message))
        case .needsPhraseChoice(_, let question, let options):
            return .failure(PhraseRefusal(
                status: .needsChoice, dialog: question, question: question,
                pendingParameter: "phrase", options: options))
        }
    }

    /// Answers an `intent/request`.
    func answer(_ request: IntentRequest, source: IntentSource = .mqtt) async -> IntentReply {
        let answers = request.intentAnswers
        switch request.body {
        case .intent(let intent):
            var reply = IntentReply(id: request.id, outcomes: [await process(intent, source: source, answers: answers, requestID: request.id)])
            if case .query(let query) = intent, query.queryType == .deviceStates { reply.coordination = await coordinationReport() }
            return reply
        case .text(let text):
            switch await process(text: text, source: source, answers: answers, requestID: request.id) {
            case .success(let steps): return IntentReply(id: request.id, steps: steps)
            case .failure(let refusal): return refusal.reply(id: request.id)
            }
        case .history(let limit):
            return historyReply(id: request.id, limit: limit)
        }
    }

    /// Who coordinates and which nodes are online, as this node knows it.
    func coordinationReport() async -> CoordinationReport {
        let status = coordination.status
        let heard = await service.nodeStatuses
        let nodes = configuration.nodes.map { node in
            let state = node.id == coordination.node ? "online" : heard[node.id].map { $0 ? "online" : "offline" } ?? "unknown"
            return CoordinationReport.NodeState(node: node.id, status: state, mayCoordinate: coordination.candidates.contains(node.id))
        }
        return CoordinationReport(coordinator: status.coordinator, term: status.term, answeredBy: coordination.node, nodes: nodes)
    }

    // MARK: Rules

    /// Runs the rules `trigger` fires, each through the one path with source `rule`.
    func fireRules(for trigger: RuleBook.Trigger, depth: Int = 0) async {
        guard depth <= RuleBook.maximumDepth else {
            logger.error("rule chain stopped at depth \(depth) on \(trigger): rules trigger each other in a loop")
            return
        }
        let now = clock.now
        for rule in rules.matching(trigger) {
            switch rules.admit(rule.id, at: now) {
            case .allowed: break
            case .stoppedNow:
                logger.error("rule \(rule.id) stopped: it fired \(RuleBook.burstLimit) times within \(RuleBook.burstWindow) (a loop?); restart housectl to re-enable it")
                continue
            case .stopped:
                continue
            }
            logger.info("rule \(rule.id) fired on \(trigger)")
            await process(rule.intent.intent, source: .rule, ruleDepth: depth)
        }
    }

    /// Rules for a device state change reported by the relays or a state topic. Only the
    /// coordinator runs rules, so that a rule fires once however many nodes see the change; the rules of
    /// an input (a contact, a motion sensor) run on the node it is wired to, which hears it first
    /// and needs no broker for it.
    func deviceStateChanged(_ device: DeviceID, to state: DeviceState) async {
        if let owner = configuration.device(id: device)?.input?.node {
            guard owner == service.node || service.node == nil else { return }
        } else {
            guard coordination.isActing else { return }
        }
        await fireRules(for: .deviceState(device, state))
    }

    /// An input of this node did something: a contact's or motion sensor's new level is the
    /// device's state (retained on its state topic, rules fire); a button press goes out on the
    /// button's `event` topic and fires the button's rules, here on the node it is wired to, so
    /// that a wall button switching a relay of this node works while the broker is down.
    func inputEvent(_ event: InputEvent) async {
        guard let device = configuration.device(id: event.device) else { return }
        switch event {
        case .level(let id, let active, let chatter, let initial):
            let state = DeviceState(isOn: active)
            await service.noteState(id, state)
            if let cover = await service.noteOpenerContact(id) { await publishOpener(cover) }
            publishState(state, of: device)
            logger.info("input \(event)")
            if chatter > 0 { logger.info("input \(id): \(chatter) chattering edges debounced") }
            if !initial { await deviceStateChanged(id, to: state) }
        case .press(let id, let press):
            logger.info("input \(event)")
            publish(layout.deviceEvent(room: device.room, device: id), Self.json(["event_type": press.rawValue]), retain: false)
            await fireRules(for: .button(id, press))
        case .chatter:
            logger.info("input \(event)")
        }
    }

    /// Rules for an MQTT message on a rule topic (on the coordinator).
    func mqttMessage(_ message: MQTTMessage) async {
        guard !message.retain, coordination.isActing else { return }
        await fireRules(for: .mqtt(topic: message.topic, payload: message.payload))
    }

    /// The MQTT topic filters the rules listen to.
    nonisolated var ruleTopics: [String] { RuleBook(rules: configuration.rules).topicFilters }

    // MARK: Publishing

    /// Publishes the house mode, retained: the mode id, `none` when no mode is set, `mixed` when
    /// rooms are in different modes.
    func publishMode() async {
        let byRoom = await service.modesByRoom
        let mode = await service.currentMode?.rawValue ?? (byRoom.isEmpty ? "none" : "mixed")
        publish(layout.modeState, mode, retain: true)
    }

    /// Publishes today's energy use in kWh, retained (Home Assistant's energy sensors), unless
    /// the figure is the one already published and `force` is false: the house's, and with
    /// `perDevice` each metered device's (once a minute and after a reconnect, not after every
    /// command, which only changes the house's figure that people watch).
    func publishEnergy(force: Bool = false, perDevice: Bool = false) async {
        let text = Self.kilowattHoursText(await service.energyUsed(in: .today))
        if force || text != lastEnergy {
            lastEnergy = text
            publish(layout.energyState, text, retain: true)
        }
        guard perDevice else { return }
        for (device, kWh) in await service.energyTodayByDevice() {
            let text = Self.kilowattHoursText(kWh)
            if !force && lastDeviceEnergy[device.id] == text { continue }
            lastDeviceEnergy[device.id] = text
            publish(layout.deviceEnergy(room: device.room, device: device.id), text, retain: true)
        }
    }

    /// Publishes at QoS 1 without waiting for the PUBACK (libmosquitto sends it again until
    /// acknowledged: still at least once), so a command's state and event cost no round trip.
    /// Nonisolated and synchronous: a relay's state goes out as the relay switches (from the
    /// relay bank's edge), and a topic handler answers from the MQTT network thread.
    nonisolated func publish(_ topic: String, _ payload: String, retain: Bool) {
        publish(MQTTMessage(topic: topic, string: payload, qos: .atLeastOnce, retain: retain))
    }

    /// A device's state, retained, on its state topic. The topic is made once per device and the
    /// payload is one of two shared arrays: a burst of commands holds no copy of either per
    /// state waiting for the client's in-flight window.
    nonisolated func publishState(_ state: DeviceState, of device: Device) {
        let topic = stateTopics[device.id] ?? layout.deviceState(room: device.room, device: device.id)
        publish(MQTTMessage(topic: topic, payload: state.payload, qos: .atLeastOnce, retain: true))
    }

    /// `publish(_:_:retain:)` of a whole message (with MQTT 5 properties).
    nonisolated func publish(_ message: MQTTMessage) {
        do {
            try client.send(message)
        } catch {
            logger.warning("publish \(message.topic) failed: \(error)")
        }
    }

    /// `publish(_:_:retain:)`, returning once the broker acknowledged it: it then has everything
    /// this controller published before (one connection's messages are handled in order).
    nonisolated func publishAcknowledged(_ topic: String, _ payload: String, retain: Bool) async {
        do {
            try await client.publish(MQTTMessage(topic: topic, string: payload, qos: .atLeastOnce, retain: retain))
        } catch {
            logger.warning("publish \(topic) failed: \(error)")
        }
    }

    /// A control command that was not carried out (refused, waiting for a yes, failed, busy):
    /// its devices' states go out again, so a screen that showed the switch as switched at once
    /// (Home Assistant's optimistic switch) snaps back; a refusal is also recorded on `events`,
    /// with its reason, for whoever sent it without asking for a reply.
    private func notCarriedOut(_ outcome: IntentOutcome, at now: Date) async {
        // A sensor has no switch state to restore: its state topic carries its reading.
        for device in outcome.resolvedDevices(in: configuration) where device.kind != .sensor && !device.kind.isInput {
            if device.motor != nil {
                await publishCover(device)
                continue
            }
            if device.opener != nil {
                await publishOpener(device)
                continue
            }
            let state = await service.state(of: device.id)
            publishState(state, of: device)
        }
        if outcome.status == .refused {
            events.publish(.json(outcome.refusalEvent(at: WallInstant(now)).json))
        }
    }

    /// kWh with three decimals ("1.234"), without `String(format:)` (once per command).
    static func kilowattHoursText(_ kWh: Double) -> String {
        let wattHours = Int64((max(kWh, 0) * 1000).rounded())
        let fraction = String(wattHours % 1000)
        return "\(wattHours / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// Records a handled intent in the history; the resolution trace (`details`) is kept for
    /// outcomes that are not done (a question, a refusal, a failure: what one looks into), a done
    /// one has its summary and answer (and its trace on `house/events`).
    private func record(_ outcome: IntentOutcome, at date: Date, requestID: String?) {
        let details = outcome.status == .done ? nil
            : try? SortedJSONEncoder().encode(IntentTrace(outcome))
        let record = StateStore.HistoryRecord(
            at: date, source: outcome.source.rawValue, kind: Self.kind(outcome.intent), summary: outcome.intent.description,
            outcome: outcome.status.rawValue, dialog: outcome.dialog, details: details, requestID: requestID)
        do {
            try store.appendHistory(record)
            try store.saveLastActive(date)
        } catch {
            logger.error("\(error)")
        }
    }

    private func historyReply(id: String, limit: Int) -> IntentReply {
        do {
            let records = try store.history(limit: max(1, min(limit, 1000)))
            let calendar = HouseCalendar(house: configuration.house)
            let lines = records.map { "\(calendar.iso8601Text($0.at)) \($0.source) \($0.summary): \($0.outcome) — \($0.dialog)" }
            var reply = IntentReply(id: id, outcomes: [])
            reply.status = .done
            reply.phase = .handle
            reply.dialog = lines.isEmpty ? "No history yet." : lines.joined(separator: "\n")
            return reply
        } catch {
            return IntentReply(id: id, error: "\(error)")
        }
    }

    static func kind(_ intent: HouseIntent) -> String {
        switch intent {
        case .control: "control"
        case .setMode: "mode"
        case .query: "query"
        case .runRoutine: "routine"
        }
    }

    /// Compact JSON with sorted keys (every payload the daemon publishes), `fallback` if it cannot be encoded.
    static func json<T: Encodable>(_ value: T, fallback: String = "{}") -> String {
        value.sortedJSON(fallback: fallback)
    }
}

/// Why a phrase did not become intents: nothing matched, or it needs a choice first.
public struct PhraseRefusal: Error, Sendable, Equatable {
    public var status: IntentReply.Status
    public var dialog: String
    public var question: String? = nil
    public var pendingParameter: String? = nil
    public var options: [ParameterResolution.Option] = []

    func reply(id: String) -> IntentReply {
        var r = IntentReply(id: id, status: status, phase: .resolve, dialog: dialog)
        r.question = question
        r.pendingParameter = pendingParameter
        r.options = options
        return r
    }
}
