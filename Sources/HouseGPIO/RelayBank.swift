import HouseCore

/// The relays of one node: the one place every path (CLI, MQTT, routines, timers) switches a relay
/// through, so the safety rules hold whoever asks.
///
/// - Power-on: each line is requested with its power-on state in the same request (off, on, or the
///   caller's persisted state for `restore`; off when there is none). Interlocked relays that should
///   be on start off and go on after the dead time. If several members of a group would be on, a
///   member with `power_on: on` wins and the restored ones stay off; without one, all stay off.
/// - Interlock groups: switching one member on first switches the others off and waits the dead
///   time; two members are never on together, not even for one edge.
/// - Pulse (on, then off after the pulse; a pulse for a relay that is on already and has no pulse
///   of its own sets when it goes off) and max-on (the watchdog switches off after the limit and
///   says so in `events`).
/// - Minimum interval between switchings of one relay: a command that comes too soon is refused or
///   coalesced (`ChatterPolicy`). Safety switch-offs at shutdown do not wait.
/// - Idempotence: a relay already in the wanted state makes no edge.
/// - Shutdown: per relay leave as is or off (relays with a pulse or max-on always go off).
///
/// A value the house engine owns (`RelaySwitching`): every call takes the time, and what the
/// relays did is appended to the caller's `events`. Timers (pulse end, watchdog, pending
/// switches) fire when `fireDueTimers(at:events:)` runs, at `nextDeadline` or later.
public struct RelayBank: RelaySwitching {
    /// The consumer name the lines are requested with.
    public static var consumer: String { "housectl" }

    public let layout: RelayLayout
    public let chip: any GPIOChip
    public let chatterPolicy: ChatterPolicy
    /// What each relay did at power-on, and why.
    public let powerOnDecisions: [PowerOnDecision]
    private var slots: [DeviceID: Slot]
    private var isShutDown = false

    struct Pending: Sendable {
        var target: Bool
        var pulse: Duration?
        /// When to try again.
        var due: WallInstant
        /// When the switch is expected (later than `due` while waiting for another member).
        var eta: WallInstant
    }

    struct AutoOff: Sendable {
        var at: WallInstant
        var cause: SwitchCause
    }

    /// One relay: its configuration, found once, and its state (changed in place in `slots`).
    struct Slot: Sendable {
        let channel: RelayLayout.Channel
        /// The channel's interlock group, if any.
        let group: RelayLayout.InterlockGroup?
        var isOn: Bool
        var lastEdge: WallInstant
        var lastOff: WallInstant?
        var onSince: WallInstant?
        var pending: Pending?
        var autoOff: AutoOff?

        init(channel: RelayLayout.Channel, group: RelayLayout.InterlockGroup?, isOn: Bool, lastEdge: WallInstant, lastOff: WallInstant?, onSince: WallInstant?) {
            self.channel = channel
            self.group = group
            self.isOn = isOn
            self.lastEdge = lastEdge
            self.lastOff = lastOff
            self.onSince = onSince
        }
    }

    /// Requests every relay line of `layout` on `chip` with its power-on state and starts enforcing
    /// the policies.
    ///
    /// - Parameters:
    ///   - persisted: the last known state per device id, for `power_on: restore`.
    ///   - restart: set when the controller restarts in the same boot (not after a power cut):
    ///     every relay with a persisted state keeps it, requested with that value (no glitch),
    ///     and a max-on watchdog counts the time it has been on already (`onFor`); a pulse cut
    ///     short by the restart goes on for what was left of it.
    /// - Throws: `GPIOError` when a line cannot be requested; lines already requested are released.
    public init(
        layout: RelayLayout, chip: any GPIOChip, at now: WallInstant,
        persisted: [DeviceID: DeviceState] = [:], restart: RelayRestart? = nil,
        chatterPolicy: ChatterPolicy = .coalesce
    ) throws(GPIOError) {
        var wants: [DeviceID: (on: Bool, reason: PowerOnDecision.Reason)] = [:]
        /// Pulses the restart cut short: what is left of each.
        var pulseLeft: [DeviceID: Duration] = [:]
        for c in layout.channels {
            if restart != nil, c.pulse == nil, let state = persisted[c.device] {
                wants[c.device] = (state.isOn, .keptAcrossRestart)
                continue
            }
            if let restart, let pulse = c.pulse, persisted[c.device] == .on,
               let already = restart.onFor[c.device], already < pulse {
                wants[c.device] = (true, .keptAcrossRestart)
                pulseLeft[c.device] = pulse - already
                continue
            }
            switch c.powerOn {
            case .off: wants[c.device] = (false, .policyOff)
            case _ where c.pulse != nil: wants[c.device] = (false, .pulseRelay)
            case .on: wants[c.device] = (true, .policyOn)
            case .restore:
                if let state = persisted[c.device] { wants[c.device] = (state.isOn, .restored) }
                else { wants[c.device] = (false, .nothingToRestore) }
            }
        }
        var delayedOn: [DeviceID: Duration] = [:]
        for g in layout.groups {
            let on = g.members.filter { wants[$0]?.on == true }
            // A member configured `power_on: on` wins over restored ones; otherwise nobody does.
            let winner = on.count > 1 ? on.first { wants[$0]?.reason == .policyOn } : on.first
            for m in on where m != winner { wants[m] = (false, .interlockConflict(group: g.id, members: on)) }
            // A winding kept on across a restart was on a moment ago: no dead time to wait.
            if let m = winner, wants[m]?.reason != .keptAcrossRestart {
                let mi = layout.channel(device: m)?.minInterval ?? .zero
                delayedOn[m] = max(g.deadTime, mi)
            }
        }

        var slots: [DeviceID: Slot] = [:]
        var decisions: [PowerOnDecision] = []
        var requested: [Int] = []
        for c in layout.channels {
            let want = wants[c.device]!
            let initial = want.on && delayedOn[c.device] == nil
            do {
                try chip.requestOutput(line: c.line, consumer: RelayBank.consumer, activeLow: c.activeLow, initialValue: initial)
            } catch {
                for line in requested { chip.release(line: line) }
                throw error
            }
            requested.append(c.line)
            var slot = Slot(channel: c, group: layout.group(of: c.device), isOn: initial, lastEdge: now,
                            lastOff: initial ? nil : now, onSince: initial ? now : nil)
            if initial, let left = pulseLeft[c.device] {
                slot.autoOff = AutoOff(at: now.advanced(by: left), cause: .pulseEnd)
            } else if initial, let maxOn = c.maxOn {
                // Across a restart the watchdog resumes: the time already on counts.
                let already = min(restart?.onFor[c.device] ?? .zero, maxOn)
                slot.autoOff = AutoOff(at: now.advanced(by: maxOn - already), cause: .watchdog)
            }
            if let delay = delayedOn[c.device] { slot.pending = Pending(target: true, pulse: nil, due: now.advanced(by: delay), eta: now.advanced(by: delay)) }
            slots[c.device] = slot
            decisions.append(PowerOnDecision(
                device: c.device, initial: DeviceState(isOn: initial), target: DeviceState(isOn: want.on),
                scheduled: delayedOn[c.device], reason: want.reason))
        }

        self.layout = layout
        self.chip = chip
        self.chatterPolicy = chatterPolicy
        self.powerOnDecisions = decisions
        self.slots = slots
    }

    // MARK: Commands

    /// Switches a relay; the one entry point for every caller.
    public mutating func perform(_ command: RelayCommand, on device: DeviceID, at now: WallInstant,
                                 events: inout [RelayEvent]) -> RelayResult {
        guard !isShutDown else { return .refused(.shutDown) }
        guard let slot = slots[device] else { return .refused(.unknownRelay(device)) }
        let c = slot.channel
        let target: Bool
        var pulse: Duration? = nil
        switch command {
        case .on:
            target = true
            pulse = c.pulse
        case .off:
            target = false
        case .toggle:
            target = !(slot.pending?.target ?? slot.isOn)
            pulse = target ? c.pulse : nil
        case .pulse(let d):
            target = true
            guard let d = d ?? c.pulse else {
                return .refused(.invalidPulse("\"\(device)\" has no pulse configured; give the pulse a duration"))
            }
            if d <= .zero { return .refused(.invalidPulse("a pulse must last longer than zero")) }
            if let mi = c.minInterval, d < mi {
                return .refused(.invalidPulse("a pulse of \(fmt(d)) is shorter than the minimum interval \(fmt(mi)) of \"\(device)\""))
            }
            if let configured = c.pulse, d > configured {
                return .refused(.invalidPulse("a pulse of \(fmt(d)) is longer than the configured pulse \(fmt(configured)) of \"\(device)\", its longest press"))
            }
            if let maxOn = c.maxOn, d > maxOn {
                return .refused(.invalidPulse("a pulse of \(fmt(d)) is longer than the max-on \(fmt(maxOn)) of \"\(device)\""))
            }
            pulse = d
        }
        let wanted = DeviceState(isOn: target)

        // A pulse for a relay that is on: it stays on and goes off after the new pulse, never
        // later than its max-on allows (a cover's winding moving on to a new position). A relay
        // with a pulse of its own (a door opener's button) is never held longer than that.
        if case .pulse = command, slot.isOn, c.pulse == nil, let pulse {
            if let p = slot.pending {
                slots[device]?.pending = nil
                emit(&events, .cancelled(device: device, wanted: DeviceState(isOn: p.target), reason: "asked to pulse ON, which it is"))
            }
            var auto = AutoOff(at: now.advanced(by: pulse), cause: .pulseEnd)
            if let maxOn = c.maxOn, let since = slot.onSince, since.advanced(by: maxOn) < auto.at {
                auto = AutoOff(at: since.advanced(by: maxOn), cause: .watchdog)
            }
            slots[device]?.autoOff = auto
            return .retimed(offAfter: now.duration(to: auto.at))
        }

        if target == slot.isOn {
            if let p = slot.pending {
                slots[device]?.pending = nil
                emit(&events, .cancelled(device: device, wanted: DeviceState(isOn: p.target), reason: "asked \(wanted.rawValue), which it already is"))
            }
            return .unchanged(wanted)
        }
        if let p = slot.pending, p.target == target {
            return .coalesced(wanted, after: max(.zero, now.duration(to: p.eta)))
        }
        if chatterPolicy == .refuse {
            if let mi = c.minInterval, slot.lastEdge.advanced(by: mi) > now {
                return .refused(.tooSoon(remaining: now.duration(to: slot.lastEdge.advanced(by: mi)), minInterval: mi))
            }
            if target, let group = slot.group {
                for m in group.members where m != device {
                    guard let other = slots[m], other.isOn, let mi = other.channel.minInterval else { continue }
                    let ready = other.lastEdge.advanced(by: mi)
                    if ready > now { return .refused(.interlockMemberTooSoon(m, remaining: now.duration(to: ready))) }
                }
            }
        }
        if target, let group = slot.group {
            for m in group.members where m != device {
                if let p = slots[m]?.pending, p.target {
                    slots[m]?.pending = nil
                    emit(&events, .cancelled(device: m, wanted: .on, reason: "\"\(device)\" of interlock group \"\(group.id)\" was asked ON"))
                }
            }
        }
        slots[device]?.pending = Pending(target: target, pulse: pulse, due: now, eta: now)
        return settle(device, now: now, events: &events)
    }

    /// Switches a relay on or off.
    public mutating func set(_ device: DeviceID, to state: DeviceState, at now: WallInstant, events: inout [RelayEvent]) -> RelayResult {
        perform(state.isOn ? .on : .off, on: device, at: now, events: &events)
    }

    // MARK: Timers

    /// The earliest time a timer (pending switch, pulse end, watchdog) is due, if any.
    public var nextDeadline: WallInstant? {
        guard !isShutDown else { return nil }
        var best: WallInstant? = nil
        for slot in slots.values {
            if let t = slot.pending?.due, best.map({ t < $0 }) ?? true { best = t }
            if let t = slot.autoOff?.at, best.map({ t < $0 }) ?? true { best = t }
        }
        return best
    }

    /// Acts on every timer due at `now`, earliest first.
    public mutating func fireDueTimers(at now: WallInstant, events: inout [RelayEvent]) {
        guard !isShutDown else { return }
        while let (device, isAutoOff) = earliestDue(now: now) {
            if isAutoOff {
                guard let slot = slots[device], let auto = slot.autoOff else { continue }
                let onFor = slot.onSince.map { $0.duration(to: now) } ?? .zero
                do {
                    try edge(device, on: false, cause: auto.cause, now: now, events: &events)
                    if auto.cause == .watchdog { emit(&events, .watchdog(device: device, after: onFor)) }
                } catch {
                    slots[device]?.autoOff = nil
                    emit(&events, .failed(device: device, error: error.description))
                }
            } else if slots[device] != nil {
                if case .refused(.hardware(let error)) = settle(device, now: now, events: &events) {
                    emit(&events, .failed(device: device, error: error))
                }
            }
        }
    }

    // MARK: Shutdown

    /// Applies each relay's shutdown policy and releases the lines. Pending switches are dropped;
    /// relays with shutdown `off` go off at once (safety does not wait for the minimum interval).
    @discardableResult
    public mutating func shutdown(at now: WallInstant, events: inout [RelayEvent]) -> [RelayOutcome] {
        guard !isShutDown else { return [] }
        var outcomes: [RelayOutcome] = []
        for c in layout.channels {
            guard let slot = slots[c.device] else { continue }
            if let p = slot.pending {
                slots[c.device]?.pending = nil
                emit(&events, .cancelled(device: c.device, wanted: DeviceState(isOn: p.target), reason: "shutting down"))
            }
            if slot.isOn && c.shutdown == .off {
                do {
                    try edge(c.device, on: false, cause: .shutdown, now: now, events: &events)
                    outcomes.append(RelayOutcome(device: c.device, result: .switched(.off)))
                } catch {
                    outcomes.append(RelayOutcome(device: c.device, result: .refused(.hardware(error.description))))
                }
            } else {
                outcomes.append(RelayOutcome(device: c.device, result: .unchanged(DeviceState(isOn: slot.isOn))))
            }
        }
        for c in layout.channels { chip.release(line: c.line) }
        isShutDown = true
        return outcomes
    }

    /// For a process about to exit without its graceful shutdown (stuck, or told twice to stop):
    /// drives the lines of the relays whose shutdown policy is off to off and releases every
    /// line, straight on the chip, without waiting for the bank's owner (which may be busy).
    /// Returns the relays it switched off.
    public static func releaseLinesForExit(layout: RelayLayout, chip: any GPIOChip) -> [DeviceID] {
        var switchedOff: [DeviceID] = []
        for c in layout.channels {
            if c.shutdown == .off, (try? chip.setValue(line: c.line, to: false)) != nil {
                switchedOff.append(c.device)
            }
            chip.release(line: c.line)
        }
        return switchedOff
    }

    // MARK: State

    /// The current state of every relay (what to persist for `restore`).
    public var states: [DeviceID: DeviceState] {
        slots.mapValues { DeviceState(isOn: $0.isOn) }
    }

    /// The current state of one relay.
    public func state(of device: DeviceID) -> DeviceState? {
        slots[device].map { DeviceState(isOn: $0.isOn) }
    }

    /// Every relay, by channel.
    public func status(at now: WallInstant) -> [RelayStatus] {
        return layout.channels.compactMap { c in
            guard let s = slots[c.device] else { return nil }
            return RelayStatus(
                channel: c, state: DeviceState(isOn: s.isOn),
                pendingState: s.pending.map { DeviceState(isOn: $0.target) },
                pendingAfter: s.pending.map { max(.zero, now.duration(to: $0.eta)) },
                autoOffAfter: s.autoOff.map { max(.zero, now.duration(to: $0.at)) })
        }
    }

    // MARK: Internals

    private func emit(_ events: inout [RelayEvent], _ event: RelayEvent) {
        events.append(event)
    }

    private func earliestDue(now: WallInstant) -> (DeviceID, Bool)? {
        var best: (WallInstant, DeviceID, Bool)? = nil
        for (device, slot) in slots {
            if let a = slot.autoOff, a.at <= now, best == nil || (a.at, device) < (best!.0, best!.1) {
                best = (a.at, device, true)
            }
            if let p = slot.pending, p.due <= now, best == nil || (p.due, device) < (best!.0, best!.1) {
                best = (p.due, device, false)
            }
        }
        return best.map { ($0.1, $0.2) }
    }

    /// Makes a pending switch happen now if every rule allows, or sets the time it may happen.
    private mutating func settle(_ device: DeviceID, now: WallInstant, events: inout [RelayEvent]) -> RelayResult {
        guard let slot = slots[device] else { return .refused(.unknownRelay(device)) }
        guard let p = slot.pending else { return .unchanged(DeviceState(isOn: slot.isOn)) }
        let wanted = DeviceState(isOn: p.target)
        var due = now
        var reason: RelayWaitReason? = nil
        var retry: WallInstant? = nil
        if let mi = slot.channel.minInterval {
            let t = slot.lastEdge.advanced(by: mi)
            if t > due { due = t; reason = .minInterval(mi) }
        }
        if p.target, let group = slot.group {
            for m in group.members where m != device {
                guard let other = slots[m] else { continue }
                if other.isOn {
                    let ready = other.channel.minInterval.map { other.lastEdge.advanced(by: $0) } ?? now
                    if ready <= now {
                        do { try edge(m, on: false, cause: .interlock(for: device), now: now, events: &events) } catch {
                            slots[device]?.pending = nil
                            return .refused(.hardware(error.description))
                        }
                    } else {
                        // Retry when that member may go off; the dead time follows from there.
                        if retry == nil || ready < retry! { retry = ready }
                        let t = ready.advanced(by: group.deadTime)
                        if t > due { due = t; reason = .interlockMember(m, group: group.id) }
                        continue
                    }
                }
                // Read again: the edge just made changed it.
                if let off = slots[m]?.lastOff {
                    let t = off.advanced(by: group.deadTime)
                    if t > due { due = t; reason = .deadTime(group: group.id, group.deadTime) }
                }
            }
        }
        if due > now, let reason {
            slots[device]?.pending?.due = retry ?? due
            slots[device]?.pending?.eta = due
            return .scheduled(wanted, after: now.duration(to: due), because: reason)
        }
        do {
            try edge(device, on: p.target, cause: .command, now: now, events: &events)
        } catch {
            slots[device]?.pending = nil
            return .refused(.hardware(error.description))
        }
        if p.target {
            let c = slot.channel
            var auto: AutoOff? = nil
            if let pulse = p.pulse { auto = AutoOff(at: now.advanced(by: pulse), cause: .pulseEnd) }
            if let maxOn = c.maxOn, auto == nil || now.advanced(by: maxOn) < auto!.at {
                auto = AutoOff(at: now.advanced(by: maxOn), cause: .watchdog)
            }
            slots[device]?.autoOff = auto
        }
        return .switched(wanted)
    }

    /// One edge: writes the line and updates the bookkeeping.
    private mutating func edge(_ device: DeviceID, on: Bool, cause: SwitchCause, now: WallInstant, events: inout [RelayEvent]) throws(GPIOError) {
        guard var slot = slots[device] else { return }
        try chip.setValue(line: slot.channel.line, to: on)
        slot.isOn = on
        slot.lastEdge = now
        if on {
            slot.onSince = now
        } else {
            slot.lastOff = now
            slot.onSince = nil
            slot.autoOff = nil
        }
        if let p = slot.pending, p.target == on { slot.pending = nil }
        slots[device] = slot
        emit(&events, .switched(device: device, to: DeviceState(isOn: on), cause: cause))
    }
}
