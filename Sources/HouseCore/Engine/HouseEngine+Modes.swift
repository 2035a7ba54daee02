import Foundation

/// Modes: each room's timeline, their ends, what a change publishes and records, and the
/// house-level state the coordinator keeps.
extension HouseEngine {
    /// The mode of the whole house when every room is in the same mode, else nil.
    public var currentMode: ModeID? {
        let modes = Set(configuration.rooms.map { roomModes[$0.id] })
        guard modes.count == 1, let only = modes.first else { return nil }
        return only
    }

    /// The mode of each room that has one.
    public var modesByRoom: [RoomID: ModeID] { roomModes }

    var roomModes: [RoomID: ModeID] { modeSnapshot.roomModes }

    /// The current mode state.
    public var modeSnapshot: ModeSnapshot { ModeSnapshot(timelines: timelines) }

    /// Restores a persisted mode state without actuating anything (the relays restore themselves
    /// through their power-on policy). Unknown modes and rooms are dropped; a temporary mode
    /// that ended while the controller was down ends at the next command or tick.
    public func restoreModes(_ snapshot: ModeSnapshot) {
        var restored: [RoomID: ModeTimeline] = [:]
        for (room, timeline) in snapshot.timelines where configuration.room(id: room) != nil {
            let kept = timeline.filter { configuration.mode(id: $0) != nil }
            if !kept.isEmpty { restored[room] = kept }
        }
        timelines = restored
    }

    /// Ends the temporary modes that have run out, room by room: each room goes back to what is
    /// below it on its timeline then (a longer temporary mode, or its base), and the devices of
    /// that mode in that room are switched; recorded, published, and the rules of the modes that
    /// come back fire. Nil when no temporary mode ended.
    @discardableResult
    public func revertExpiredModes() -> HouseResponse? {
        let before = modeSnapshot
        let now = clock.now
        var targets: [(Device, DeviceState)] = []
        var covers: [(Device, Int)] = []
        var ended = false
        for room in timelines.keys.sorted() {
            guard var timeline = timelines[room] else { continue }
            let current = timeline.current
            _ = timeline.expire(at: now.date)
            guard timeline != timelines[room] else { continue }
            ended = true
            timelines[room] = timeline
            guard timeline.current != current, let back = timeline.current.flatMap(configuration.mode(id:)) else { continue }
            for (id, s) in back.devices.sorted(by: { $0.key < $1.key }) {
                if let d = configuration.device(id: id), d.room == room { targets.append((d, s)) }
            }
            for (id, position) in back.covers.sorted(by: { $0.key < $1.key }) {
                if let d = configuration.device(id: id), d.room == room { covers.append((d, position)) }
            }
        }
        guard ended else { return nil }
        let commands = plan(targets) + covers.flatMap { coverCommands($0.0, target: $0.1).commands }
        let execution = execute(commands)
        let response = HouseResponse(code: execution.failure == nil ? .success : .failure,
                                     dialog: execution.failure.map(HouseDialog.failed) ?? execution.answer(HouseDialog.modeIs(currentMode)),
                                     commands: commands, mode: currentMode)
        effects.log(.info, "mode reverted: \(response.dialog)")
        effects.records.append(.history(HistoryRecord(
            at: now.date, source: IntentSource.routine.rawValue, kind: "mode", summary: "temporary mode ended",
            outcome: IntentOutcome.Status.done.rawValue, dialog: response.dialog, details: nil, requestID: nil)))
        effects.publish(layout.events, Self.json(["event": "mode-reverted", "text": response.dialog]), retain: false)
        modesChanged(from: before, at: now.date, ruleDepth: 0)
        return response
    }

    /// After a command: when the modes differ from `before`, they are recorded and (coordinator)
    /// published, and the rules of the modes that came into effect fire.
    func modesChanged(from before: ModeSnapshot, at now: Date, ruleDepth: Int) {
        let after = modeSnapshot
        guard after != before else { return }
        effects.records.append(.modes(after, at: now))
        guard acting else { return }
        effects.publish(layout.modeTimeline, Self.json(after), retain: true)
        guard after.roomModes != before.roomModes else { return }
        publishMode()
        for mode in Set(after.roomModes.values).subtracting(before.roomModes.values).sorted() {
            fireRules(for: .mode(mode), depth: ruleDepth + 1)
        }
    }

    /// Publishes the house mode, retained: the mode id, `none` when no mode is set, `mixed` when
    /// rooms are in different modes.
    func publishMode() {
        let byRoom = modesByRoom
        let mode = currentMode?.rawValue ?? (byRoom.isEmpty ? "none" : "mixed")
        effects.publish(layout.modeState, mode, retain: true)
    }

    /// This node starts coordinating (term `term`): the modes the last coordinator published are
    /// adopted (this node's own may be older) and the house-level state published.
    func coordinationStarted(term: UInt64, modes: ModeSnapshot?) {
        if let modes, modes != modeSnapshot {
            restoreModes(modes)
            effects.records.append(.modes(modeSnapshot, at: clock.now.date))
        }
        publishHouseState()
        // The devices this node now serves that have not said their state are asked for it.
        askStates()
        effects.log(.info, "coordinating in term \(term): mode \(currentMode?.rawValue ?? "mixed or none")")
    }

    /// The house-level retained state the coordinator keeps: the mode and its timeline, each
    /// sensor's availability as the house knows it now (offline until a value).
    func publishHouseState() {
        guard acting else { return }
        publishMode()
        effects.publish(layout.modeTimeline, Self.json(modeSnapshot), retain: true)
        for device in configuration.devices where device.kind == .sensor {
            if case .value? = readings[device.id] {
                publishAvailability(device, online: true)
            } else {
                publishAvailability(device, online: false)
            }
        }
    }
}
