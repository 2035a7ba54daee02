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
    /// The devices asked for their state since the last (re)connect (see `askStates`).
    var statesAsked: Set<DeviceID> = []
    /// Each button's presses since the start, this node's and other nodes' (see `HouseEngine+Inputs`).
    var buttonPresses: [DeviceID: HouseOverview.ButtonView] = [:]
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
    /// When the positions of the moving covers next go out; nil while none moves.
    var coverReportDue: WallInstant?
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

    /// Carries out `command` to its end and returns its reply and what it did. `acting`: whether
    /// this node coordinates the house now; `replying`: whether somebody waits for the reply (an
    /// intent nobody waits for, with no request id to answer a repeat with, gets an empty one).
    public func perform(_ command: HouseCommand, acting: Bool = true, replying: Bool = true) -> (reply: IntentReply, effects: Effects) {
        // A node that starts coordinating acts in that command (it publishes the house's state).
        if case .coordinationStarted = command { self.acting = true } else { self.acting = acting }
        fireDueTimers()
        let reply = carryOut(command, replying: replying)
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

    private func carryOut(_ command: HouseCommand, replying: Bool) -> IntentReply {
        switch command {
        case .intent(let intent, let source, let answers, let requestID):
            if let requestID, let first = repeated(requestID) { return first }
            let outcome = carryOut(intent, source: source, answers: answers, requestID: requestID)
            guard replying || requestID != nil else { return IntentReply.none }
            let reply = IntentReply(id: requestID ?? "", outcomes: [outcome])
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
        case .pressReport(let device, let press):
            notePress(device, press)
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
        return IntentReply.none
    }

    // MARK: Repeats

    /// The first answer to a request id seen before, or nil for a new id (then marked seen). A
    /// client retrying after a timeout hears the answer it missed; an id from before a restart,
    /// whose answer is gone, is answered with that.
    func repeated(_ id: String) -> IntentReply? {
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

    func remember(_ reply: IntentReply, for id: String?) {
        guard let id else { return }
        if recentReplies.updateValue(reply, forKey: id) == nil { recentReplyOrder.append(id) }
        if recentReplyOrder.count > Self.repliesKept {
            recentReplies[recentReplyOrder.removeFirst()] = nil
        }
    }

    // MARK: State

    /// The last known state of a device (off until something says otherwise).
    public func state(of device: DeviceID) -> DeviceState { states[device] ?? .off }

    /// A device's state if it has been received (or set here) since the start; nil for one that
    /// lives elsewhere and has not said yet: unknown wherever it is shown. This node's own
    /// relays are what it drives: never unknown.
    public func knownState(of device: DeviceID) -> DeviceState? {
        if let known = states[device] { return known }
        guard let relay = configuration.device(id: device)?.relay, node == nil || relay.node == node else { return nil }
        return state(of: device)
    }

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
        // The first node keeps the house's energy: only its edges are recorded.
        if ledger.record(device, on: s.isOn, at: now), isPrimary, (configuration.device(id: device)?.watts ?? 0) > 0 {
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

// MARK: - Timers

/// The engine's timers: the relays' (pulse ends, max-on, deferred switches), the end of
/// temporary modes, openers' deadlines, the energy figure after switches and the minute's checks.
/// The timer service sleeps until `nextWake` and puts a `.tick` on the bus; every command
/// carries out first what is due by its time.
extension HouseEngine {
    /// When the next timer is due; nil: none.
    public var nextWake: WallInstant? {
        var next = nextMinute
        if let due = relays?.nextDeadline, due < next { next = due }
        for (id, press) in openerPresses {
            if let opener = configuration.device(id: id)?.opener, press.at.advanced(by: opener.deadline) < next {
                next = press.at.advanced(by: opener.deadline)
            }
        }
        // Only the coordinator ends temporary modes (another node's timelines may be stale).
        if acting, let end = modeExpiry, end < next { next = end }
        if let due = energyDue, due < next { next = due }
        if let due = coverReportDue, due < next { next = due }
        return next
    }

    /// When the next temporary mode of any room ends, if one is set (not before its end: the
    /// instant's milliseconds rounded up, so that a tick then finds it ended).
    public var modeExpiry: WallInstant? {
        guard let end = timelines.values.compactMap(\.nextExpiry).min() else { return nil }
        let instant = WallInstant(end)
        return instant.date < end ? instant.advanced(by: .milliseconds(1)) : instant
    }

    /// Carries out every timer due by now, earliest kind first: what the relays do on time, the
    /// presses that ran out, the modes that ended, then the figures.
    func fireDueTimers() {
        let now = clock.now
        guard let wake = nextWake, wake <= now else { return }
        if let due = relays?.nextDeadline, due <= now {
            var events: [RelayEvent] = []
            relays!.fireDueTimers(at: now, events: &events)
            relayEvents(events)
        }
        if let due = nextOpenerDeadline, due <= now { checkOpeners() }
        if let due = coverReportDue, due <= now { reportMovingCovers(at: now) }
        if acting, let due = modeExpiry, due <= now { revertExpiredModes() }
        if let due = energyDue, due <= now {
            energyDue = nil
            publishEnergy()
        }
        if nextMinute <= now {
            nextMinute = now.advanced(by: Self.minute)
            publishEnergy(perDevice: true)
            checkStaleSensors()
            effects.records.append(.checkpoint(now.date))
            let windowStart = now.advanced(by: .zero - Self.commandWindow)
            seenCommands = seenCommands.filter { $0.value >= windowStart }
        }
    }
}

// MARK: - The pipeline

/// The one path every intent takes: resolve each parameter, confirm, then handle. A question
/// (which room, which lamp, are you sure) ends a call with `needsValue`, `needsChoice` or
/// `needsConfirmation`; the caller asks and calls again with the same intent and the answers so
/// far (`IntentAnswers`). Nothing is kept between calls.
extension HouseEngine {
    /// Resolves every parameter (pure; see `IntentResolver`).
    public nonisolated func resolve(_ intent: HouseIntent, answers: IntentAnswers = .none) -> IntentResolution {
        resolver.resolve(intent, answers: answers)
    }

    /// Checks that `source` may do this now: permissions, and devices not mid-movement.
    /// Permission is checked before a yes is asked for, so nobody confirms what they may not do.
    public func confirm(_ resolved: ResolvedIntent, source: IntentSource) -> ConfirmResult {
        let grant = configuration.permissions.grant(for: source)
        switch resolved {
        case .control(let devices, let action, _):
            for d in devices {
                if grant.denyDevices.contains(d.id) {
                    return .failureRequiresPermission(prompt: HouseDialog.notAllowed(device: configuration.label(for: d), source: source))
                }
                if d.needsConfirmation(for: action) && !grant.allowConfirmDevices {
                    return .failureRequiresPermission(prompt: HouseDialog.confirmNotAllowed(device: configuration.label(for: d), source: source))
                }
            }
            for d in devices where isBusy(d.id) {
                return .inProgress
            }
            return .ready
        case .setMode(let mode, let rooms, _):
            if grant.denyModes.contains(mode.id) {
                return .failureRequiresPermission(prompt: HouseDialog.modeNotAllowed(mode: mode.id, source: source))
            }
            let targets = configuration.modeTargets(mode, rooms: rooms)
            if let d = targets.first(where: { grant.denyDevices.contains($0.device.id) })?.device {
                return .failureRequiresPermission(prompt: HouseDialog.notAllowed(device: configuration.label(for: d), source: source))
            }
            let needsYes = mode.confirm || targets.contains { $0.device.confirm && $0.state == .on }
            if needsYes && !grant.allowConfirmDevices {
                return .failureRequiresPermission(prompt: HouseDialog.modeNotAllowed(mode: mode.id, source: source))
            }
            return .ready
        case .query, .runRoutine:
            return .ready
        }
    }

    /// Resolves, confirms and handles `intent` from `source`, with the answers given so far, and
    /// records a donation after a success. A dry run goes through every step but issues no
    /// command, changes no state and records no donation. What it switched and published is in
    /// `takeEffects()`; the command-level record (history, events, modes, rules) is `perform`'s.
    ///
    /// `commandID` (a request id, a routine run) goes with the relay commands sent to other nodes,
    /// which carry out a repeat of it once.
    public func process(_ intent: HouseIntent, source: IntentSource, answers: IntentAnswers = .none,
                        dryRun: Bool = false, commandID: String? = nil) -> IntentOutcome {
        let resolution = resolve(intent, answers: answers)
        var outcome = IntentOutcome(intent: intent, source: source, status: .unsupported,
                                    parameters: resolution.parameters, dryRun: dryRun, dialog: "")
        if let blocking = resolution.blocking {
            outcome.pendingParameter = blocking.parameter
            switch blocking.kind {
            case .needsValue:
                outcome.status = .needsValue
                outcome.question = blocking.question
            case .disambiguation:
                outcome.status = .needsChoice
                outcome.question = blocking.question
                outcome.options = blocking.options
            default:
                outcome.status = .unsupported
                outcome.pendingParameter = nil
            }
            outcome.dialog = blocking.question ?? blocking.reason ?? ""
            return outcome
        }
        guard let resolved = resolution.resolved else { return outcome }

        let confirmation = confirm(resolved, source: source)
        outcome.confirm = confirmation
        switch confirmation {
        case .ready: break
        case .inProgress:
            outcome.status = .inProgress
            outcome.dialog = resolved.deviceLabels(configuration).first.map(HouseDialog.busy) ?? ""
            return outcome
        case .failure(let reason):
            outcome.status = .refused
            outcome.dialog = reason
            return outcome
        case .failureRequiresPermission(let prompt):
            outcome.status = .refused
            outcome.dialog = prompt
            return outcome
        }
        if let pending = resolution.pendingConfirmation {
            outcome.status = .needsConfirmation
            outcome.pendingParameter = pending.parameter
            outcome.question = pending.question
            outcome.dialog = pending.question ?? ""
            return outcome
        }

        if case .runRoutine(let routine) = resolved {
            let inner = process(routine.intent.intent, source: .routine, answers: answers, dryRun: dryRun, commandID: commandID)
            outcome.nested = [inner]
            outcome.status = inner.status
            outcome.response = inner.response
            outcome.question = inner.question
            outcome.options = inner.options
            outcome.pendingParameter = inner.pendingParameter
            outcome.dialog = inner.dialog
            if inner.status == .done && !dryRun {
                record(intent, resolution: resolution, source: source, response: inner.response)
            }
            return outcome
        }

        let response = handle(resolved, dryRun: dryRun, commandID: commandID)
        outcome.response = response
        outcome.status = response.code == .success ? .done : .failed
        outcome.dialog = response.dialog
        if response.code == .success && !dryRun {
            record(intent, resolution: resolution, source: source, response: response)
        }
        return outcome
    }

    /// Runs a phrase's commands through the pipeline (the CLI's `say --dry-run`).
    public func process(phrase text: String, source: IntentSource, answers: IntentAnswers = .none, dryRun: Bool = false) -> PhraseRun {
        run(phrase: text, answers: answers) { intent in process(intent, source: source, answers: answers, dryRun: dryRun) }
    }

    /// Carries out a resolved, confirmed intent; in a dry run, plans the commands without issuing
    /// them or changing any state.
    func handle(_ resolved: ResolvedIntent, dryRun: Bool = false, commandID: String? = nil) -> HouseResponse {
        self.commandID = commandID
        defer { self.commandID = nil }
        switch resolved {
        case .control(let devices, let action, let position):
            return control(devices, action: action, position: position, dryRun: dryRun)
        case .setMode(let mode, let rooms, let duration):
            return setMode(mode, rooms: rooms, duration: duration, dryRun: dryRun)
        case .query(let type, let range, let room, let devices, let place):
            return query(type, range: range, room: room, devices: devices, place: place)
        case .runRoutine(let routine):
            return HouseResponse(code: .failure, dialog: HouseDialog.failed("routine \(routine.id) must be run through process"))
        }
    }

    private func record(_ intent: HouseIntent, resolution: IntentResolution, source: IntentSource, response: HouseResponse?) {
        var params: [String: String] = [:]
        params.reserveCapacity(resolution.parameters.count)
        for p in resolution.parameters where !p.values.isEmpty {
            params[p.parameter] = p.values.map(\.id).joined(separator: ",")
        }
        donate(Donation(intent: intent, parameters: params, source: source, time: clock.now,
                        outcome: response?.code ?? .success, dialog: response?.dialog ?? "",
                        commands: response?.commands ?? []))
    }

    // MARK: A command's record

    /// `process`, then what follows a command: the history, the donation on `events`, a changed
    /// mode saved and published with the rules it fires, and for a command not carried out its
    /// devices' true states again. `ruleDepth` counts how many rules led here (loop protection).
    @discardableResult
    func carryOut(_ intent: HouseIntent, source: IntentSource, answers: IntentAnswers = .none,
                  requestID: String? = nil, commandID: String? = nil, ruleDepth: Int = 0) -> IntentOutcome {
        let before = timelines
        let outcome = process(intent, source: source, answers: answers, commandID: commandID ?? requestID)
        let now = clock.now
        let donation = outcome.status == .done ? lastDonation : nil
        let summary = intent.description
        if let donation { effects.messages.append(Effects.Message(topic: layout.events, payload: donation.event(summary: summary).bytes, retain: false)) }
        recordHistory(outcome, summary: summary, at: now.date, requestID: requestID)
        if donation != nil {
            energyMoved()
        } else if outcome.status != .done, !outcome.dryRun {
            switch intent {
            case .control: notCarriedOut(outcome, at: now)
            // A mode not set (Home Assistant's select offered `mixed`, say): the true mode again.
            case .setMode where acting:
                publishMode()
                publishRefusal(outcome, at: now)
            case .setMode, .query, .runRoutine: break
            }
        }
        if timelines != before { modesChanged(from: ModeSnapshot(timelines: before), at: now.date, ruleDepth: ruleDepth) }
        if outcome.status != .done {
            effects.log(.info, "\(source.rawValue) \(intent): \(outcome.status.rawValue): \(outcome.dialog)")
        }
        return outcome
    }

    /// A control command that was not carried out (refused, waiting for a yes, failed, busy):
    /// its devices' states go out again, so a screen that showed the switch as switched at once
    /// (Home Assistant's optimistic switch) snaps back; a refusal is also recorded on `events`,
    /// with its reason, for whoever sent it without asking for a reply.
    private func notCarriedOut(_ outcome: IntentOutcome, at now: WallInstant) {
        // A sensor has no switch state to restore: its state topic carries its reading.
        for device in outcome.resolvedDevices(in: configuration) where device.kind != .sensor && !device.kind.isInput {
            if device.motor != nil {
                publishCover(device)
            } else if device.opener != nil {
                publishOpener(device)
            } else {
                publishState(state(of: device.id), of: device)
            }
        }
        publishRefusal(outcome, at: now)
    }

    /// A command refused, unsupported or failed goes on `events` with its reason, for whoever
    /// sent it without asking for a reply (Home Assistant shows it as an event); a question
    /// waits for its answer instead.
    private func publishRefusal(_ outcome: IntentOutcome, at now: WallInstant) {
        guard [.refused, .unsupported, .failed].contains(outcome.status) else { return }
        effects.publish(layout.events, outcome.refusalEvent(at: now).json, retain: false)
    }

    /// Records a handled intent in the history; the resolution trace (`details`) is kept for
    /// outcomes that are not done (a question, a refusal, a failure: what one looks into), a done
    /// one has its summary and answer (and its trace on `events`) and what it did, which the
    /// habits are found from.
    private func recordHistory(_ outcome: IntentOutcome, summary: String, at date: Date, requestID: String?) {
        let details = outcome.status == .done ? nil : try? SortedJSONEncoder().encode(IntentTrace(outcome))
        effects.records.append(.history(HistoryRecord(
            at: date, source: outcome.source.rawValue, kind: outcome.intent.kind, summary: summary,
            outcome: outcome.status.rawValue, dialog: outcome.dialog, details: details, requestID: requestID,
            did: HistoryRecord.did(outcome))))
        effects.records.append(.lastActive(date))
    }
}

extension ResolvedIntent {
    func deviceLabels(_ config: HouseConfiguration) -> [String] {
        if case .control(let devices, _, _) = self { return devices.map(config.label(for:)) }
        return []
    }
}

extension HouseIntent {
    /// The history's kind of an intent: `control`, `mode`, `query`, `routine`.
    public var kind: String {
        switch self {
        case .control: "control"
        case .setMode: "mode"
        case .query: "query"
        case .runRoutine: "routine"
        }
    }
}
