/// The one path every request takes: resolve each parameter, confirm, then handle in
/// `HouseService`. The daemon, the CLI, MQTT requests, rules and routines all call `process`.
///
/// A question (which room, which lamp, are you sure) ends a call with `needsValue`,
/// `needsChoice` or `needsConfirmation`; the caller asks the user and calls `process` again with
/// the same intent and the answers so far (`IntentAnswers`).
public struct IntentPipeline: Sendable {
    public let service: HouseService
    public let resolver: IntentResolver

    public var configuration: HouseConfiguration { service.configuration }

    public init(service: HouseService) {
        self.service = service
        self.resolver = IntentResolver(configuration: service.configuration)
    }

    /// Resolves every parameter (pure; see `IntentResolver`).
    public func resolve(_ intent: HouseIntent, answers: IntentAnswers = .none) -> IntentResolution {
        resolver.resolve(intent, answers: answers)
    }

    /// Checks that `source` may do this now: permissions, and devices not mid-movement.
    public func confirm(_ resolved: ResolvedIntent, source: IntentSource) async -> ConfirmResult {
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
            for d in devices where await service.isBusy(d.id) {
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

    /// Resolves, confirms and handles `intent` from `source`, with the answers given so far.
    /// A dry run goes through every step but issues no command, changes no state and records
    /// no donation.
    ///
    /// `commandID` (a request id, a routine run) goes with the relay commands sent to other nodes,
    /// which carry out a repeat of it once.
    public func process(_ intent: HouseIntent, source: IntentSource, answers: IntentAnswers = .none,
                        dryRun: Bool = false, commandID: String? = nil) async -> IntentOutcome {
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

        let confirmation = await confirm(resolved, source: source)
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
            let inner = await process(routine.intent.intent, source: .routine, answers: answers, dryRun: dryRun, commandID: commandID)
            outcome.nested = [inner]
            outcome.status = inner.status
            outcome.response = inner.response
            outcome.question = inner.question
            outcome.options = inner.options
            outcome.pendingParameter = inner.pendingParameter
            outcome.dialog = inner.dialog
            if inner.status == .done && !dryRun {
                await record(intent, resolution: resolution, source: source, response: inner.response)
            }
            return outcome
        }

        let response = await service.handle(resolved, dryRun: dryRun, commandID: commandID)
        outcome.response = response
        outcome.status = response.code == .success ? .done : .failed
        outcome.dialog = response.dialog
        if response.code == .success && !dryRun {
            await record(intent, resolution: resolution, source: source, response: response)
        }
        return outcome
    }

    private func record(_ intent: HouseIntent, resolution: IntentResolution, source: IntentSource, response: HouseResponse?) async {
        var params: [String: String] = [:]
        params.reserveCapacity(resolution.parameters.count)
        for p in resolution.parameters where !p.values.isEmpty {
            params[p.parameter] = p.values.map(\.id).joined(separator: ",")
        }
        let donation = Donation(intent: intent, parameters: params, source: source, time: service.clock.now,
                                outcome: response?.code ?? .success, dialog: response?.dialog ?? "",
                                commands: response?.commands ?? [])
        await service.donate(donation)
    }
}

extension ResolvedIntent {
    func deviceLabels(_ config: HouseConfiguration) -> [String] {
        if case .control(let devices, _, _) = self { return devices.map(config.label(for:)) }
        return []
    }
}
