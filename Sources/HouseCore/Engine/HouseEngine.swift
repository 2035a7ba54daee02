import Foundation

/// The one owner of the house's state: device states, each room's mode timeline, the relays of
/// this node (`RelaySwitching`: the relay bank and its safety rules), covers, openers, sensors'
/// readings, energy, the rules and the answers to recent requests.
///
/// Only the command bus's consumer changes it, one command at a time: `perform` carries a
/// `HouseCommand` through resolve, confirm and handle and returns what happened as `Effects`
/// (messages to publish, records to keep, lines to log, when its next timer is due). Nothing in
/// it awaits: a command is done, with all it caused, when `perform` returns, and no other
/// command runs in the middle of it. Timers (a pulse's end, a mode's end, an opener's deadline)
/// come back as `.tick` commands, and every command first carries out what is due by then.
///
/// The CLI's dry runs and the tests use it without relays: every step runs, nothing is issued.
public actor HouseEngine {
    public nonisolated let configuration: HouseConfiguration
    /// This node's id: its relays are switched through `relays`, other nodes' relays through
    /// their peer topic. Nil means every relay is local (one node, or a simulation).
    public nonisolated let node: NodeID?
    /// The clock every time in the engine is read from.
    public nonisolated let clock: any WallClock
    public nonisolated let layout: TopicLayout
    /// Whether this is the first node, which keeps and publishes the house's energy.
    public nonisolated let isPrimary: Bool
    nonisolated let resolver: IntentResolver
    let matcher: PhraseMatcher?
    /// This node's relays; nil when it has none (relay commands then fail clearly).
    var relays: (any RelaySwitching)?
    /// The relay bank's id per relay channel of this node (a device's, or a cover's winding).
    nonisolated let relayIDs: [RelayRef: DeviceID]
    /// Each device's state topic, made once.
    nonisolated let stateTopics: [DeviceID: String]

    // MARK: The house's state

    var states: [DeviceID: DeviceState] = [:]
    /// The mode timeline of each room that ever had a mode: its base mode and timed layers.
    var timelines: [RoomID: ModeTimeline] = [:]
    var busyUntil: [DeviceID: WallInstant] = [:]
    /// Other nodes' last reported status: true online, false offline (their relays cannot be
    /// switched from here); absent when never reported.
    var nodeOnline: [NodeID: Bool] = [:]
    var ledger = EnergyLedger()
    /// Each cover's position (see `HouseEngine+Covers`).
    var covers: [DeviceID: CoverPosition] = [:]
    /// The last press of each opener of this node still under way, the openers that did not
    /// reach their end in time, and other nodes' openers' states (see `HouseEngine+Openers`).
    var openerPresses: [DeviceID: OpenerPress] = [:]
    var openerObstructed: Set<DeviceID> = []
    var openerReports: [DeviceID: CoverState] = [:]
    /// Each sensor's latest reading.
    var readings: [DeviceID: SensorReading] = [:]
    /// Today in the house's time zone, `[start, end)` (energy today is asked for often).
    var today: (start: WallInstant, end: WallInstant)?
    var donationLog = RecentLog<Donation>(limit: HouseEngine.donationMemoryLimit)
    var donationListeners: [UUID: AsyncStream<Donation>.Continuation] = [:]
    /// The id of the command being handled (a request id, a routine run), stamped with the device
    /// on the relay commands sent to other nodes so that they carry out a repeat once.
    var commandID: String?

    // MARK: Commands

    /// Whether this node coordinates the house now (it runs the rules, keeps the modes and
    /// publishes the house-level state only then); given with each command.
    var acting = true
    var rules: RuleBook
    /// The devices whose state a rule watches: a relay edge of any other device is nothing for
    /// the rules.
    public nonisolated let stateWatchedDevices: Set<DeviceID>
    /// The latest replies by request id, oldest first in `recentReplyOrder`.
    var recentReplies: [String: IntentReply] = [:]
    var recentReplyOrder: [String] = []
    /// Request ids seen within `commandWindow` (before a restart too: loaded at start).
    var seenCommands: [String: WallInstant]
    /// State changes the relays made during a command, for the rules once the command is done.
    var edgesForRules: [(DeviceID, DeviceState)] = []
    /// What the command in hand did so far.
    var effects = Effects()

    // MARK: Timers

    /// The house's energy figure last published, and each metered device's.
    var lastEnergy: String?
    var lastDeviceEnergy: [DeviceID: String] = [:]
    /// When the house's figure is published next after a switch (at most once a second).
    var energyDue: WallInstant?
    var energyPublished: WallInstant?
    /// The next minute's checks: each device's energy figure, stale sensors, `last_active`.
    var nextMinute: WallInstant

    /// A request id seen within this window is a repeat.
    public static let commandWindow: Duration = .seconds(600)
    /// How many recent replies are kept, to answer a repeated request id with its first answer.
    static let repliesKept = 1000
    /// How often the minute's checks run.
    static let minute: Duration = .seconds(60)
    /// The shortest time between two energy figures published after switches.
    static let energyInterval: Duration = .seconds(1)

    /// - Parameters:
    ///   - relays: this node's relays; nil when it has none.
    ///   - matcher: the phrase templates; nil answers a phrase with "no templates loaded".
    ///   - seenCommands: request ids handled within `commandWindow` before a restart.
    public init(configuration: HouseConfiguration, node: NodeID? = nil, relays: (any RelaySwitching)? = nil,
                clock: any WallClock = SystemWallClock(), matcher: PhraseMatcher? = nil,
                seenCommands: [String: WallInstant] = [:]) {
        self.configuration = configuration
        self.node = node
        self.clock = clock
        self.layout = TopicLayout(base: configuration.mqtt.baseTopic)
        self.isPrimary = node == nil || configuration.nodes.first.map { $0.id == node } ?? true
        self.resolver = IntentResolver(configuration: configuration)
        self.matcher = matcher
        self.relays = relays
        var relayIDs: [RelayRef: DeviceID] = [:]
        for d in configuration.devices where node == nil || d.node == node {
            for (id, ref) in d.relayChannels { relayIDs[ref] = id }
        }
        self.relayIDs = relayIDs
        let layout = self.layout
        self.stateTopics = Dictionary(configuration.devices.map { ($0.id, layout.deviceState(room: $0.room, device: $0.id)) }) { a, _ in a }
        let rules = RuleBook(rules: configuration.rules)
        self.rules = rules
        self.stateWatchedDevices = rules.stateWatchedDevices
        self.seenCommands = seenCommands
        self.nextMinute = clock.now.advanced(by: Self.minute)
    }

    /// Takes each relay's state at start as its device's (after `restoreEnergy`: the energy of
    /// what is on counts from now).
    public func noteRelayStates() {
        for (device, state) in relayStates where configuration.device(id: device) != nil { setState(device, state) }
    }

    // MARK: The one way in

    /// Carries out `command` to its end and returns its reply (empty for what nobody asked) and
    /// what it did. `acting`: whether this node coordinates the house now.
    public func perform(_ command: HouseCommand, acting: Bool = true) -> (reply: IntentReply, effects: Effects) {
        self.acting = acting
        fireDueTimers()
        let reply = carryOut(command)
        fireEdgeRules()
        return (reply, takeEffects())
    }

    /// What was done since the last `perform` (for callers of `process` and the tests), with the
    /// next timer's time.
    public func takeEffects() -> Effects {
        var out = effects
        effects = Effects()
        out.wake = nextWake
        return out
    }

    private func carryOut(_ command: HouseCommand) -> IntentReply {
        switch command {
        case .intent(let intent, let source, let answers, let requestID):
            if let requestID, let first = repeated(requestID) { return first }
            let reply = IntentReply(id: requestID ?? "", outcomes: [carryOut(intent, source: source, answers: answers, requestID: requestID)])
            remember(reply, for: requestID)
            return reply
        case .routineRun(let run, let intent, let confirmed):
            let outcome = carryOut(intent, source: .routine, answers: confirmed ? IntentAnswers.none.confirming : .none,
                                   commandID: "routine:\(run.key)")
            effects.records.append(.runDone(run, at: clock.now.date))
            return IntentReply(id: "", outcomes: [outcome])
        case .request(let request, let source) where request.isReadOnly:
            return answer(request, source: source)
        case .request(let request, let source):
            if let first = repeated(request.id) { return first }
            let reply = answer(request, source: source)
            remember(reply, for: request.id)
            return reply
        case .peerRelay(let command):
            return peerRelay(command)
        case .tick:
            break
        case .stateReport(let device, let state, let retained, let mirror):
            let changed = self.state(of: device) != state
            setState(device, state)
            energyMoved()
            if mirror, acting, let d = configuration.device(id: device) { publishState(state, of: d) }
            if !retained && changed { deviceStateChanged(device, to: state) }
        case .input(let event):
            inputEvent(event)
        case .openerReport(let device, let state):
            openerReports[device] = state
        case .coverReport(let device, let report):
            covers[device] = CoverPosition(position: Double(report.position), assumed: report.assumed)
        case .sensorMessage(let device, let payload):
            sensorMessage(device, payload)
        case .nodeStatus(let node, let online):
            nodeOnline[node] = online
        case .ruleMessage(let topic, let payload, let retained):
            if !retained, acting { fireRules(for: .mqtt(topic: topic, payload: payload)) }
        case .coordinationStarted(let term, let modes):
            coordinationStarted(term: term, modes: modes)
        case .republish:
            republish()
        case .shutdown:
            shutDownRelays()
        }
        return IntentReply(id: "", outcomes: [])
    }

    /// Answers an `intent/request`: a typed intent, or a phrase (every command it holds).
    private func answer(_ request: IntentRequest, source: IntentSource) -> IntentReply {
        let answers = request.intentAnswers
        switch request.body {
        case .intent(let intent):
            return IntentReply(id: request.id, outcomes: [carryOut(intent, source: source, answers: answers, requestID: request.id)])
        case .text(let text):
            switch carryOut(text: text, source: source, answers: answers, requestID: request.id) {
            case .success(let steps): return IntentReply(id: request.id, steps: steps)
            case .failure(let refusal): return refusal.reply(id: request.id)
            }
        case .history:
            return IntentReply(id: request.id, error: "the history is answered by the state store, not the engine")
        }
    }

    /// Matches `text` against the phrase templates and carries out every command it holds
    /// ("... and ..."). Real ambiguity becomes a question; text that matches nothing is answered
    /// with the closest phrases known.
    func carryOut(text: String, source: IntentSource, answers: IntentAnswers = .none,
                  requestID: String? = nil) -> Result<[PhraseRun.Step], PhraseRefusal> {
        guard let matcher else {
            return .failure(PhraseRefusal(status: .unsupported, dialog: "This controller has no phrase templates loaded."))
        }
        let run = PhraseRun.run(matcher.interpret(text), answers: answers) { intent in
            carryOut(intent, source: source, answers: answers, requestID: requestID)
        }
        switch run.end {
        case .processed:
            return .success(run.steps)
        case .notUnderstood(let message):
            return .failure(PhraseRefusal(status: .unsupported, dialog: message))
        case .needsPhraseChoice(_, let question, let options):
            return .failure(PhraseRefusal(status: .needsChoice, dialog: question, question: question,
                                          pendingParameter: "phrase", options: options))
        }
    }

    /// A relay command from the controller that resolved the intent on another node; a repeat
    /// (the same request carried out again after a takeover) is carried out once.
    private func peerRelay(_ command: PeerRelayCommand) -> IntentReply {
        let key = command.id.map { "relay:" + $0 }
        if let key, let first = repeated(key) {
            // The sender may think the repeat did something: the true state again.
            if let device = configuration.device(id: command.device), device.relay != nil {
                publishState(state(of: device.id), of: device)
            }
            return first
        }
        guard let response = handlePeer(command) else {
            effects.log(.warning, "refused: relay command for \(command.device), which is not a relay of node \(node?.rawValue ?? "?")")
            return IntentReply(id: "", status: .unsupported, phase: .resolve, dialog: "not a relay of this node")
        }
        effects.log(.info, "relay command from a peer: \(command.device): \(response.dialog)")
        let reply = IntentReply(id: "", status: response.code == .success ? .done : .failed, phase: .handle, dialog: response.dialog)
        remember(reply, for: key)
        return reply
    }

    // MARK: Repeats

    /// The first answer to a request id seen before, or nil for a new id (then marked seen). A
    /// client retrying after a timeout hears the answer it missed; an id from before a restart,
    /// whose answer is gone, is answered with that.
    private func repeated(_ id: String) -> IntentReply? {
        if let first = recentReplies[id] {
            effects.log(.info, "repeated command id \(id): answered again with its first answer")
            return first
        }
        let now = clock.now
        if let seen = seenCommands[id], seen.duration(to: now) < Self.commandWindow {
            effects.log(.info, "repeated command id \(id), handled before a restart: not done again")
            return IntentReply(id: id, error: "repeated command id \(id): it was handled before the controller restarted, and is not done again")
        }
        seenCommands[id] = now
        effects.records.append(.commandSeen(id, at: now.date))
        return nil
    }

    private func remember(_ reply: IntentReply, for id: String?) {
        guard let id else { return }
        if recentReplies.updateValue(reply, forKey: id) == nil { recentReplyOrder.append(id) }
        if recentReplyOrder.count > Self.repliesKept {
            recentReplies[recentReplyOrder.removeFirst()] = nil
        }
    }

    // MARK: State

    /// The last known state of a device (off until something says otherwise).
    public func state(of device: DeviceID) -> DeviceState { states[device] ?? .off }

    /// Records a state reported from outside (a relay read back at start, an input's level).
    public func noteState(_ device: DeviceID, _ state: DeviceState) {
        setState(device, state)
    }

    /// Records a sensor's reading (a value from its topic, or why its payload gave none).
    public func noteReading(_ device: DeviceID, _ reading: SensorReading) {
        readings[device] = reading
    }

    /// A sensor's latest reading; nil before the first.
    public func reading(of device: DeviceID) -> SensorReading? { readings[device] }

    /// Records another node's status (`online`/`offline`): a relay of an offline node is
    /// refused with a reason instead of being sent into the void.
    public func noteNode(_ node: NodeID, online: Bool) {
        nodeOnline[node] = online
    }

    /// Each other node's status as last reported (absent: never heard).
    public var nodeStatuses: [NodeID: Bool] { nodeOnline }

    /// Whether a device is mid-pulse (a garage door moving).
    public func isBusy(_ device: DeviceID) -> Bool {
        busyUntil[device].map { clock.now < $0 } ?? false
    }

    func setState(_ device: DeviceID, _ s: DeviceState) {
        states[device] = s
        let now = clock.now
        if ledger.record(device, on: s.isOn, at: now), (configuration.device(id: device)?.watts ?? 0) > 0 {
            effects.records.append(.energyEdge(EnergyEdge(device: device, on: s.isOn, at: now)))
        }
    }

    // MARK: Donations

    /// How many donations the engine keeps in memory (the newest): the daemon keeps the history
    /// in SQLite.
    public static var donationMemoryLimit: Int { 64 }

    /// Every donation recorded so far (the newest `donationMemoryLimit`), oldest first.
    public var donations: [Donation] { donationLog.elements }

    /// The donation recorded last.
    public var lastDonation: Donation? { donationLog.last }

    /// Donations as they are recorded from now on.
    public func donationStream() -> AsyncStream<Donation> {
        let (stream, continuation) = AsyncStream<Donation>.makeStream(bufferingPolicy: .bufferingNewest(256))
        donationListeners[UUID()] = continuation
        return stream
    }

    /// Records a donation (the pipeline does this after a successful handle).
    func donate(_ donation: Donation) {
        donationLog.append(donation)
        for (id, c) in donationListeners {
            if case .terminated = c.yield(donation) { donationListeners[id] = nil }
        }
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
