import Foundation

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
        guard let matcher else { return PhraseRun(steps: [], end: .notUnderstood(message: "This controller has no phrase templates loaded.")) }
        return PhraseRun.run(matcher.interpret(text), answers: answers) { intent in
            process(intent, source: source, answers: answers, dryRun: dryRun)
        }
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
        let before = modeSnapshot
        let outcome = process(intent, source: source, answers: answers, commandID: commandID ?? requestID)
        let now = clock.now
        let donation = outcome.status == .done ? lastDonation : nil
        if let donation { effects.publish(layout.events, donation.event.json, retain: false) }
        recordHistory(outcome, at: now.date, requestID: requestID)
        if donation != nil {
            energyMoved()
        } else if outcome.status != .done, !outcome.dryRun {
            switch intent {
            case .control: notCarriedOut(outcome, at: now)
            // A mode not set (Home Assistant's select offered `mixed`, say): the true mode again.
            case .setMode where acting: publishMode()
            case .setMode, .query, .runRoutine: break
            }
        }
        modesChanged(from: before, at: now.date, ruleDepth: ruleDepth)
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
        if outcome.status == .refused {
            effects.publish(layout.events, outcome.refusalEvent(at: now).json, retain: false)
        }
    }

    /// Records a handled intent in the history; the resolution trace (`details`) is kept for
    /// outcomes that are not done (a question, a refusal, a failure: what one looks into), a done
    /// one has its summary and answer (and its trace on `events`).
    private func recordHistory(_ outcome: IntentOutcome, at date: Date, requestID: String?) {
        let details = outcome.status == .done ? nil : try? SortedJSONEncoder().encode(IntentTrace(outcome))
        effects.records.append(.history(HistoryRecord(
            at: date, source: outcome.source.rawValue, kind: outcome.intent.kind, summary: outcome.intent.description,
            outcome: outcome.status.rawValue, dialog: outcome.dialog, details: details, requestID: requestID)))
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
