import Foundation
import HouseCore
import HouseGPIO

/// Carrying out the commands of the bus. Only `CommandBusService` calls `perform`, one command
/// at a time, so nothing of another command happens in the middle of one.
extension IntentGateway {
    /// How many recent replies are kept, to answer a repeated request id with its first answer
    /// (the replies of read-only requests are not: see `IntentRequest.isReadOnly`).
    static let repliesKept = 1000

    /// Carries out `command` and answers it (an empty reply for what nobody waits for).
    func perform(_ command: HouseCommand) async -> IntentReply {
        switch command {
        case .setDevice(let id, let action, let confirmed):
            guard let device = configuration.device(id: id) else {
                return IntentReply(id: "", error: "\(id) is not a device of this house any more")
            }
            // The intent the `set` topic's handler would have queued: carried out the same way.
            let intent = DeviceSetCommand(action: action, confirmed: confirmed).intent(for: device)
            return await perform(.intent(intent, source: .mqtt, answers: IntentAnswers(confirmed: confirmed), requestID: nil))
        case .intent(let intent, let source, let answers, let requestID):
            if let requestID, let first = repeated(requestID) { return first }
            let reply = IntentReply(id: requestID ?? "", outcomes: [await process(intent, source: source, answers: answers, requestID: requestID)])
            remember(reply, for: requestID)
            return reply
        case .routineRun(let run, let intent, let confirmed):
            let outcome = await process(intent, source: .routine, answers: confirmed ? IntentAnswers.none.confirming : .none,
                                        commandID: "routine:\(run.key)")
            do { try store.markRunDone(run, at: clock.now.date) } catch { logger.error("\(error)") }
            return IntentReply(id: "", outcomes: [outcome])
        case .request(let request, let source) where request.isReadOnly:
            return await answer(request, source: source)
        case .request(let request, let source):
            if let first = repeated(request.id) { return first }
            let reply = await answer(request, source: source)
            remember(reply, for: request.id)
            return reply
        case .peerRelay(let command):
            // A repeat (the same request carried out again after a takeover): carried out once.
            let key = command.id.map { "relay:" + $0 }
            if let key, let first = repeated(key) {
                // The sender may think the repeat did something: the true state again.
                if let device = configuration.device(id: command.device), device.relay != nil {
                    publishState(await service.state(of: device.id), of: device)
                }
                return first
            }
            guard let response = await service.handlePeer(command) else {
                return IntentReply(id: "", status: .unsupported, phase: .resolve, dialog: "not a relay of this node")
            }
            let reply = IntentReply(id: "", status: response.code == .success ? .done : .failed, phase: .handle, dialog: response.dialog)
            remember(reply, for: key)
            return reply
        case .revertExpiredMode:
            await revertExpiredMode()
        case .stateChanged(let device, let state, let note, let rules):
            // The state before is read only where it decides (a relay edge, one per command, fires always).
            let changed = rules == .ifChanged ? await service.state(of: device) != state : true
            if note {
                await service.noteState(device, state)
                // A switch the bank made on its own, or another node's: the energy figure moves.
                if isPrimary { energyMoved.signal() }
            }
            if rules == .always || (rules == .ifChanged && changed) { await deviceStateChanged(device, to: state) }
        case .coverEdge(let relay, let on, let at):
            guard let cover = await service.noteWinding(relay, on: on, at: at) else { return IntentReply(id: "", outcomes: []) }
            await publishCover(cover)
            if !on, let report = await service.coverReport(of: cover) {
                do { try store.saveCoverPosition(cover.id, Double(report.position)) } catch { logger.error("\(error)") }
            }
        case .input(let event):
            await inputEvent(event)
        case .openerEdge(let device):
            if let cover = configuration.device(id: device) { await publishOpener(cover) }
        case .checkOpeners:
            for (cover, state) in await service.expireOpenerPresses() {
                await publishOpener(cover)
                guard state == .obstructed else { continue }
                let text = "The \(configuration.label(for: cover)) did not reach its end within \(DurationParser.format(cover.opener!.deadline)) of the press: it may be obstructed."
                logger.warning("\(cover.id): \(text)")
                events.publish(.json(Self.json(["event": "obstructed", "device": cover.id.rawValue, "text": text])))
            }
            openerWake.signal()
        case .openerReport(let device, let state):
            await service.noteOpenerReport(device, state)
        case .coverReport(let device, let report):
            await service.noteCoverReport(device, report)
        case .sensorMessage(let device, let payload):
            await sensorMessage(device, payload)
        case .checkSensors:
            await checkStaleSensors()
        case .nodeStatus(let node, let online):
            await service.noteNode(node, online: online)
        case .ruleMessage(let message):
            await mqttMessage(message)
        case .coordinationStarted(let term, let modes):
            await coordinationStarted(term: term, modes: modes)
        }
        return IntentReply(id: "", outcomes: [])
    }

    /// Publishes an opener's state (`open`, `closing`, `obstructed`, `None` when unknown), retained.
    func publishOpener(_ cover: Device) async {
        let state = await service.openerState(of: cover)
        publish(layout.deviceState(room: cover.room, device: cover.id), state.rawValue, retain: true)
        openerWake.signal()
    }

    /// Publishes a cover's state (`opening`, `open`, ...) and position (0-100), retained.
    func publishCover(_ cover: Device) async {
        guard let report = await service.coverReport(of: cover) else { return }
        publish(layout.deviceState(room: cover.room, device: cover.id), report.state.rawValue, retain: true)
        publish(layout.devicePosition(room: cover.room, device: cover.id), "\(report.position)", retain: true)
    }

    /// A sensor's topic spoke: its reading goes to the house, and a number is mirrored on the
    /// sensor's state topic (Home Assistant's sensor reads it there). A payload without a number
    /// makes the sensor unavailable, with the reason in the log once (not at every message). Its
    /// availability topic follows; a value crossing into a rule's range fires the rule.
    private func sensorMessage(_ id: DeviceID, _ payload: [UInt8]) async {
        guard let device = configuration.device(id: id), case .sensor(let source) = device.endpoint else { return }
        let reading = source.reading(from: payload, at: clock.now)
        let before = await service.reading(of: id)
        await service.noteReading(id, reading)
        // Every node that may coordinate follows the sensor; the coordinator speaks for it.
        guard coordination.isActing else { return }
        switch reading {
        case .value(let v, _):
            publish(layout.deviceState(room: device.room, device: id), JSONValue.number(v).scalarText ?? "\(v)", retain: true)
            if case .unavailable? = before { logger.info("sensor \(id) reads again") }
            if !Self.isAvailable(before) { publishAvailability(device, online: true) }
            var previous: Double? = nil
            if case .value(let p, _)? = before { previous = p }
            await fireRules(for: .sensor(id, before: previous, after: v))
        case .unavailable(let reason):
            if before != reading { logger.warning("sensor \(id) unavailable: \(reason)") }
            if Self.isAvailable(before) || before == nil { publishAvailability(device, online: false) }
        }
    }

    /// Sensors whose value is older than their `stale_after` become unavailable (once a minute).
    func checkStaleSensors() async {
        let now = clock.now
        for device in configuration.devices {
            guard case .sensor(let source) = device.endpoint, let limit = source.staleAfter,
                  case .value(_, let at)? = await service.reading(of: device.id), at.duration(to: now) > limit else { continue }
            let reason = "no value on \(source.stateTopic) for more than \(DurationParser.format(limit)) (stale_after)"
            await service.noteReading(device.id, .unavailable(reason: reason))
            guard coordination.isActing else { continue }
            logger.warning("sensor \(device.id) unavailable: \(reason)")
            publishAvailability(device, online: false)
        }
    }

    private static func isAvailable(_ reading: SensorReading?) -> Bool {
        if case .value? = reading { return true }
        return false
    }

    /// A sensor's availability topic (Home Assistant shows the sensor unavailable while it says `offline`).
    nonisolated func publishAvailability(_ sensor: Device, online: Bool) {
        publish(layout.deviceAvailability(room: sensor.room, device: sensor.id), online ? "online" : "offline", retain: true)
    }

    /// The first answer to a request id seen before, or nil for a new id (then marked seen).
    /// A client retrying after a timeout hears the answer it missed; an id from before a restart,
    /// whose answer is gone, is answered with that.
    private func repeated(_ id: String) -> IntentReply? {
        if let first = recentReplies[id] {
            logger.info("repeated command id \(id): answered again with its first answer")
            return first
        }
        let now = clock.now
        do {
            if try store.markCommandSeen(id, at: now.date, windowStart: now.advanced(by: .zero - Self.commandWindow).date) { return nil }
        } catch {
            logger.error("\(error)")
            return nil
        }
        logger.info("repeated command id \(id), handled before a restart: not done again")
        return IntentReply(id: id, error: "repeated command id \(id): it was handled before the controller restarted, and is not done again")
    }

    private func remember(_ reply: IntentReply, for id: String?) {
        guard let id else { return }
        if recentReplies.updateValue(reply, forKey: id) == nil { recentReplyOrder.append(id) }
        if recentReplyOrder.count > Self.repliesKept {
            recentReplies[recentReplyOrder.removeFirst()] = nil
        }
    }

    /// A temporary mode ran out: the modes below it come back, saved, published and in the
    /// history, and the rules of the modes that come back fire.
    private func revertExpiredMode() async {
        let before = await service.modeSnapshot
        guard let response = await service.revertExpiredMode() else { return }
        logger.info("mode reverted: \(response.dialog)")
        let now = clock.now.date
        do {
            try store.appendHistory(StateStore.HistoryRecord(
                at: now, source: IntentSource.routine.rawValue, kind: "mode", summary: "temporary mode ended",
                outcome: IntentOutcome.Status.done.rawValue, dialog: response.dialog, details: nil, requestID: nil))
        } catch {
            logger.error("\(error)")
        }
        events.publish(.json(Self.json(["event": "mode-reverted", "text": response.dialog])))
        await modesChanged(from: before, at: now, ruleDepth: 0)
    }

    /// After a command: when the modes differ from `before`, they are saved and published, the
    /// runner is told when the next temporary mode ends, and the rules of the modes that came
    /// into effect fire.
    func modesChanged(from before: HouseService.ModeSnapshot, at now: Date, ruleDepth: Int) async {
        let after = await service.modeSnapshot
        guard after != before else { return }
        do { try store.saveModes(after, at: now) } catch { logger.error("\(error)") }
        if after.nextExpiry != before.nextExpiry {
            for observer in modeObservers { observer(after.nextExpiry) }
        }
        guard coordination.isActing else { return }
        publish(layout.modeTimeline, Self.json(after), retain: true)
        guard after.roomModes != before.roomModes else { return }
        await publishMode()
        for mode in Set(after.roomModes.values).subtracting(before.roomModes.values).sorted() {
            await fireRules(for: .mode(mode), depth: ruleDepth + 1)
        }
    }

    /// This node starts coordinating (term `term`): the modes the last coordinator published are
    /// adopted (this node's own may be older), their next end told to the routines, and the
    /// house-level state published.
    func coordinationStarted(term: UInt64, modes: HouseService.ModeSnapshot?) async {
        let now = clock.now.date
        if let modes, modes != (await service.modeSnapshot) {
            await service.restoreModes(modes)
            do { try store.saveModes(await service.modeSnapshot, at: now) } catch { logger.error("\(error)") }
        }
        let snapshot = await service.modeSnapshot
        for observer in modeObservers { observer(snapshot.nextExpiry) }
        await publishHouseState()
        let mode = await service.currentMode?.rawValue ?? "mixed or none"
        logger.info("coordinating in term \(term): mode \(mode)")
    }

    /// The house-level retained state the coordinator keeps: the mode and its timeline, each
    /// sensor's availability as the house knows it now (offline until a value).
    func publishHouseState() async {
        guard coordination.isActing else { return }
        await publishMode()
        publish(layout.modeTimeline, Self.json(await service.modeSnapshot), retain: true)
        for device in configuration.devices where device.kind == .sensor {
            if case .value? = await service.reading(of: device.id) {
                publishAvailability(device, online: true)
            } else {
                publishAvailability(device, online: false)
            }
        }
    }
}
