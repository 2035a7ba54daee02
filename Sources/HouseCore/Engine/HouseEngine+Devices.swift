/// Devices: planning and issuing the commands of control, mode and query intents, what the
/// relays did, and the states and energy that follow.
extension HouseEngine {
    func control(_ devices: [Device], action: HouseAction, position: Int? = nil, dryRun: Bool) -> HouseResponse {
        var targets: [(Device, DeviceState)] = []
        var pulses: [Device] = []
        var coverMoves: [(commands: [DeviceCommand], dialog: String)] = []
        for d in devices {
            if d.motor != nil {
                coverMoves.append(coverCommands(d, target: coverTarget(d, action: action, position: position)))
                continue
            }
            if d.opener != nil {
                coverMoves.append(openerCommands(d, action: action))
                continue
            }
            if d.pulse != nil, d.relay != nil {
                pulses.append(d)
                continue
            }
            targets.append((d, target(for: d, action: action)))
        }
        var commands = plan(targets)
        for d in pulses { commands += pulseCommand(d) }
        commands += coverMoves.flatMap(\.commands)
        // What is said is made after the switch: the relay's state goes out first.
        func said() -> String {
            let labels = devices.filter { $0.motor == nil && $0.opener == nil }.map(configuration.label(for:))
            return ([targets.isEmpty && pulses.isEmpty ? nil : dialog(targets: targets, pulses: pulses, action: action, labels: labels)]
                + coverMoves.map(\.dialog)).compactMap { $0 }.joined(separator: " ")
        }
        if dryRun {
            return HouseResponse(dialog: said(), commands: commands, devices: statuses(targets))
        }
        let execution = execute(commands)
        if let failure = execution.failure {
            return HouseResponse(code: .failure, dialog: HouseDialog.failed(failure), commands: commands)
        }
        return HouseResponse(dialog: execution.answer(said()), commands: commands, devices: statuses(targets))
    }

    private func dialog(targets: [(Device, DeviceState)], pulses: [Device], action: HouseAction, labels: [String]) -> String {
        if let p = pulses.first, targets.isEmpty { return HouseDialog.pulsed(configuration.label(for: p), action: action) }
        let states = Set(targets.map(\.1))
        if states.count == 1, let s = states.first { return HouseDialog.switched(labels, to: s) }
        return targets.map { HouseDialog.switched([configuration.label(for: $0.0)], to: $0.1) }.joined(separator: " ")
    }

    func setMode(_ mode: Mode, rooms: [Room], duration: Duration?, dryRun: Bool) -> HouseResponse {
        let roomIDs = configuration.modeRooms(mode, rooms: rooms)
        let targets: [(Device, DeviceState)] = configuration.modeTargets(mode, rooms: rooms).map { ($0.device, $0.state) }
        let coverMoves = configuration.modeCoverTargets(mode, rooms: rooms).map { coverCommands($0.cover, target: $0.position) }
        let commands = plan(targets) + coverMoves.flatMap(\.commands)
        let named = rooms.isEmpty && mode.rooms.isEmpty ? [] : roomIDs.compactMap { configuration.room(id: $0)?.name.lowercased() }
        let answer = HouseDialog.modeSet(mode.id, rooms: named, duration: duration)
        if dryRun { return HouseResponse(dialog: answer, commands: commands, devices: statuses(targets), mode: mode.id) }
        let execution = execute(commands)
        if let failure = execution.failure {
            return HouseResponse(code: .failure, dialog: HouseDialog.failed(failure), commands: commands)
        }
        let now = clock.now.date
        for id in roomIDs { timelines[id, default: ModeTimeline()].set(mode.id, duration: duration, at: now) }
        return HouseResponse(dialog: execution.answer(answer), commands: commands, devices: statuses(targets), mode: mode.id)
    }

    func query(_ type: QueryType, range: TimeRange, room: Room?, devices: [Device]?, place: String?) -> HouseResponse {
        let scope = devices ?? (room.map { configuration.devices(inRoom: $0.id) } ?? configuration.devices)
        let all = scope.filter { $0.kind != .button }.map(status(of:))
        switch type {
        case .deviceStates:
            if let devices, devices.count == 1, let cover = devices.first, let opener = cover.opener {
                let state = openerState(of: cover)
                let label = configuration.label(for: cover)
                // Another node's opener it has not heard of: say who should have told.
                if state == .unknown, opener.hasContacts, let node, opener.node != node {
                    return HouseResponse(dialog: "I don't know where the \(label) is: node \(opener.node), which it is wired to, has not said.", devices: all)
                }
                return HouseResponse(dialog: HouseDialog.openerState(label, state), devices: all)
            }
            if let devices, devices.count == 1, let cover = devices.first, let report = coverReport(of: cover) {
                return HouseResponse(dialog: HouseDialog.coverState(configuration.label(for: cover), report.state, percent: report.position,
                                                                    assumed: report.assumed), devices: all)
            }
            if let devices, devices.count == 1, let d = devices.first, case .sensor(let source) = d.endpoint {
                return HouseResponse(dialog: HouseDialog.sensorReading(configuration.label(for: d), readings[d.id], unit: source.unit),
                                     devices: all)
            }
            if let devices, devices.count == 1, let d = devices.first {
                let dialog = knownState(of: d.id).map { HouseDialog.deviceState(configuration.label(for: d), $0, kind: d.kind, pulsed: d.pulse != nil) }
                    ?? HouseDialog.stateUnknown(configuration.label(for: d))
                return HouseResponse(dialog: dialog, devices: all)
            }
            let kinds = Set(scope.map(\.kind))
            if devices != nil, kinds == [.contact] {
                // "Which windows are open", "are any doors open".
                let open = scope.filter { state(of: $0.id) == .on }.map(configuration.label(for:))
                let asked = devices!.count > 1 ? PhraseVocabulary.pluralize(devices![0].names.first ?? "contact") : nil
                return HouseResponse(dialog: HouseDialog.contactsOpen(open, asked: asked, place: place), devices: all)
            }
            let on = scope.filter { state(of: $0.id) == .on && !$0.kind.isInput }.map(configuration.label(for:))
            let asked = devices != nil && kinds.count == 1 ? PhraseVocabulary.pluralize(scope[0].kind.rawValue) : nil
            return HouseResponse(dialog: HouseDialog.devicesOn(on, asked: asked, place: place), devices: all)
        case .mode:
            let m = room.flatMap { roomModes[$0.id] } ?? currentMode
            return HouseResponse(dialog: HouseDialog.modeIs(m), mode: m)
        case .energy:
            let kwh = energyUsed(in: range, devices: scope)
            let who = devices.map { $0.count == 1 ? "the " + configuration.label(for: $0[0]) : "they" }
            return HouseResponse(dialog: HouseDialog.energy(kWh: kwh, range: range, who: who, place: place), energyKWh: kwh)
        case .power:
            let drawing = scope.filter { state(of: $0.id) == .on && $0.pulse == nil }
                .map { (label: configuration.label(for: $0), watts: $0.watts) }
            return HouseResponse(dialog: HouseDialog.power(drawing, place: place), devices: all)
        }
    }

    // MARK: Planning

    func target(for d: Device, action: HouseAction) -> DeviceState {
        switch action {
        case .on, .open, .position: return .on
        case .off, .close, .stop: return .off
        case .toggle: return state(of: d.id) == .on ? .off : .on
        }
    }

    /// Commands for target states: every OFF before any ON. Interlocks are not planned here: the
    /// relay bank of the node that owns the group (a group never spans nodes) switches the
    /// partner off and waits the dead time, whoever asks; the partner's edge reaches the service
    /// as a note like every edge the bank makes on its own.
    func plan(_ targets: [(Device, DeviceState)]) -> [DeviceCommand] {
        var commands: [DeviceCommand] = []
        commands.reserveCapacity(targets.count)
        for state in [DeviceState.off, .on] {
            for (device, target) in targets where target == state { commands += switchCommand(device, state) }
        }
        return commands
    }

    func switchCommand(_ d: Device, _ s: DeviceState) -> [DeviceCommand] {
        switch d.endpoint {
        case .relay(let ref):
            if node == nil || ref.node == node { return [.relay(device: d.id, ref, s)] }
            return [.publish(device: d.id, topic: peerTopic(ref), payload: peerPayload(PeerRelayCommand(device: d.id, state: s)), state: s)]
        case .mqtt(let m):
            return [.publish(device: d.id, topic: m.commandTopic, payload: s == .on ? m.payloadOn : m.payloadOff, state: s)]
        case .none, .sensor, .cover, .input, .opener:
            return []
        }
    }

    func pulseCommand(_ d: Device) -> [DeviceCommand] {
        guard let ref = d.relay, let p = d.pulse else { return [] }
        if node == nil || ref.node == node { return [.pulse(device: d.id, ref, p)] }
        return [.publish(device: d.id, topic: peerTopic(ref), payload: peerPayload(PeerRelayCommand(device: d.id, pulse: p)), state: nil)]
    }

    /// A sensor's reading for a status line: `19.5 °C`, `unavailable`, `no value yet`; nil for
    /// a device that switches.
    func sensorValueText(_ d: Device) -> String? {
        guard case .sensor(let source) = d.endpoint else { return nil }
        switch readings[d.id] {
        case .value(let v, _): return HouseDialog.number(v) + HouseDialog.unitSuffix(source.unit)
        case .unavailable: return "unavailable"
        case nil: return "no value yet"
        }
    }

    func statuses(_ targets: [(Device, DeviceState)]) -> [HouseResponse.DeviceStatus] {
        targets.map { .init(device: $0.0.id, room: $0.0.room, state: $0.1) }
    }

    /// A device's line in a status listing: its state, a sensor's reading, a cover's position;
    /// `unknown` for a device that has not reported its state yet.
    func status(of d: Device) -> HouseResponse.DeviceStatus {
        var status = HouseResponse.DeviceStatus(device: d.id, room: d.room, state: state(of: d.id), value: sensorValueText(d))
        if d.kind == .contact { status.value = status.state == .on ? "open" : "closed" }
        if d.kind == .motion { status.value = status.state == .on ? "motion" : "no motion" }
        if d.motor == nil, d.opener == nil, d.kind != .sensor, d.kind != .button, knownState(of: d.id) == nil {
            status.state = nil
            status.value = "unknown"
        }
        if d.opener != nil {
            let s = openerState(of: d)
            status.state = s == .closed ? .off : .on
            status.value = s == .unknown ? "unknown" : s.rawValue
        }
        if let report = coverReport(of: d) {
            status.state = report.state == .closed ? .off : .on
            status.cover = report
        }
        return status
    }

    // MARK: Issuing

    /// What `execute` did: the first failure in words (which stopped the rest), and notes for the
    /// answer (a switch the safety rules deferred, a node that has not reported its status).
    struct Execution {
        var failure: String?
        var notes: [String] = []

        /// `dialog` followed by the notes, so that "done" hides neither a wait nor a doubt.
        func answer(_ dialog: String) -> String { ([dialog] + notes).joined(separator: " ") }
    }

    /// Issues commands in order, updating state after each; the first failure stops the rest.
    /// A relay of this node switches through the relay bank (its safety rules), whose edges are
    /// published and recorded as they come; a device elsewhere gets its message.
    func execute(_ commands: [DeviceCommand]) -> Execution {
        var execution = Execution()
        for command in commands {
            switch command {
            case .relay(let d, let ref, let s):
                if let failure = switchRelay(s.isOn ? .on : .off, ref, for: command, into: &execution) {
                    execution.failure = failure.description
                    return execution
                }
                setState(d, s)
            case .pulse(let d, let ref, let t):
                busyUntil[d] = clock.now.advanced(by: t)
                if let cover = configuration.device(id: d), cover.opener != nil { notePress(cover) }
                if let failure = switchRelay(.pulse(t), ref, for: command, into: &execution) {
                    execution.failure = failure.description
                    return execution
                }
            case .publish(let d, let topic, let payload, let state):
                let device = configuration.device(id: d)
                let owner = device?.relay?.node
                if let owner, nodeOnline[owner] == false {
                    execution.failure = HouseEngineError.nodeOffline(node: owner, device: d).description
                    return execution
                }
                effects.publish(topic, payload, retain: false)
                if let device, let owner, nodeOnline[owner] == nil {
                    execution.notes.append(HouseDialog.unreportedNode(configuration.label(for: device), node: owner))
                }
                if let state { setState(d, state) }
            }
        }
        return execution
    }

    /// `command` on the relay bank; nil when accepted (a switch the safety rules defer adds a
    /// note to the answer), else why not.
    private func switchRelay(_ relay: RelayCommand, _ ref: RelayRef, for command: DeviceCommand,
                             into execution: inout Execution) -> HouseEngineError? {
        guard relays != nil else { return .noRelays(node: ref.node) }
        guard let id = relayIDs[ref] else {
            return .command(command.description, reason: "relay \(ref.node)/\(ref.channel): no relay on this node at that channel")
        }
        var events: [RelayEvent] = []
        let result = relays!.perform(relay, on: id, at: clock.now, events: &events)
        relayEvents(events)
        switch result {
        case .refused(let why):
            return .command(command.description, reason: "relay \(id): \(why)")
        case .scheduled, .coalesced:
            // The safety rules defer the switch: the answer says so instead of a plain "done".
            if let d = configuration.device(id: command.device) {
                execution.notes.append(HouseDialog.deferred(configuration.label(for: d), result.description))
            }
        case .switched, .unchanged, .retimed:
            break
        }
        return nil
    }

    // MARK: What the relays did

    // What follows each thing the relays do (on command, at the end of a pulse, by the
    // watchdog, for an interlock, at shutdown): the state published and recorded for
    // `power_on: restore`; a winding moves its cover, an opener's relay its state; a change the
    // relays made on their own is the device's new state (and energy); a change a rule watches
    // fires it once the command is done.

    func relayEvents(_ events: [RelayEvent]) {
        for event in events { relayEvent(event) }
    }

    private func relayEvent(_ event: RelayEvent) {
        let now = clock.now
        switch event {
        case .switched(let device, let state, let cause):
            effects.records.append(.relayState(device, state, at: now.date))
            if cause != .command { effects.log(.info, "\(event)") }
            guard let d = configuration.device(id: device) else {
                // A cover's winding: the cover moves on.
                coverEdge(relay: device, on: state.isOn, at: now)
                return
            }
            if d.opener != nil {
                // An opener's state topic says where the cover is, not whether its button is pressed.
                publishOpener(d)
                return
            }
            publishState(state, of: d)
            // A command's edge is known already (the command set the state it switched to, also
            // for a switch the safety rules put off); what the relays did on their own is the
            // device's new state, and so is a command's edge nobody told of (an interlocked
            // relay's power-on state, switched after the dead time).
            if cause != .command || self.state(of: device) != state {
                setState(device, state)
                energyMoved()
            }
            if cause != .command || stateWatchedDevices.contains(device) { edgesForRules.append((device, state)) }
        case .watchdog:
            effects.log(.warning, "\(event)")
            effects.publish(layout.events, HouseEngine.json(["event": "watchdog", "text": event.description]), retain: false)
        case .cancelled(let device, _, _):
            // The engine expected the cancelled switch: the state the relay kept.
            if configuration.device(id: device) != nil, let kept = relays?.states[device] {
                setState(device, kept)
                energyMoved()
            }
            effects.log(.info, "\(event)")
        case .failed:
            effects.log(.error, "\(event)")
        }
    }

    /// The rules of the state changes the relays made during the command, once it is done
    /// (each at depth 0: a change, not a rule, fires them).
    func fireEdgeRules() {
        while !edgesForRules.isEmpty {
            let edges = edgesForRules
            edgesForRules = []
            for (device, state) in edges { deviceStateChanged(device, to: state) }
        }
    }

    /// Applies each relay's shutdown policy, published and recorded as it happens. The edges it
    /// makes fire no rule: a rule's command would switch a relay after its policy, and the
    /// process would exit leaving it there.
    func shutDownRelays() {
        guard relays != nil else { return }
        var events: [RelayEvent] = []
        let outcomes = relays!.shutdown(at: clock.now, events: &events)
        relayEvents(events)
        edgesForRules.removeAll()
        for o in outcomes { effects.log(.info, "shutdown: \(o)") }
    }

    /// The relays' states now (what a reconnect publishes again).
    var relayStates: [DeviceID: DeviceState] { relays?.states ?? [:] }

    // MARK: States and energy

    /// A device's state, retained, on its state topic (the topic made once per device, the
    /// payload one of two shared arrays).
    func publishState(_ state: DeviceState, of device: Device) {
        let topic = stateTopics[device.id] ?? layout.deviceState(room: device.room, device: device.id)
        effects.messages.append(Effects.Message(topic: topic, payload: state.payload, retain: true))
    }

    /// Something switched (primary node): the house's figure goes out with the next tick, at
    /// once, or when one went out within the last `energyInterval`, once that has passed (a
    /// burst costs one figure a second).
    func energyMoved() {
        guard isPrimary, energyDue == nil else { return }
        let now = clock.now
        energyDue = energyPublished.map { max(now, $0.advanced(by: Self.energyInterval)) } ?? now
    }
}
