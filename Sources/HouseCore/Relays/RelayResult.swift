
/// What a relay should do.
public enum RelayCommand: Sendable, Equatable {
    case on
    case off
    case toggle
    /// On for the duration (the relay's configured pulse when nil), then off.
    case pulse(Duration?)
}

/// The decision the relay bank took on a command; every path gets one back to show.
public enum RelayResult: Sendable, Equatable, CustomStringConvertible {
    /// The relay switched now.
    case switched(DeviceState)
    /// The relay already was in that state: no edge. Cancels any switch that was still pending.
    case unchanged(DeviceState)
    /// A pulse for a relay that is on already: no edge; it now goes off after `offAfter` (a
    /// cover moving on to a new position). The relay's max-on still holds.
    case retimed(offAfter: Duration)
    /// The relay will switch after a wait, for the reason given.
    case scheduled(DeviceState, after: Duration, because: RelayWaitReason)
    /// The same switch was already pending; this command was merged into it.
    case coalesced(DeviceState, after: Duration)
    /// Nothing was done.
    case refused(RelayRefusal)

    /// Whether the relay is, or will be, in the wanted state.
    public var isAccepted: Bool {
        if case .refused = self { return false }
        return true
    }

    public var description: String {
        switch self {
        case .switched(let s): "switched \(s.rawValue)"
        case .unchanged(let s): "already \(s.rawValue), nothing to do"
        case .retimed(let after): "already ON; now goes OFF in \(DurationParser.format(after))"
        case .scheduled(let s, let after, let why): "will switch \(s.rawValue) in \(DurationParser.format(after)): \(why)"
        case .coalesced(let s, let after): "already switching \(s.rawValue) in \(DurationParser.format(after)); merged with that"
        case .refused(let why): "refused: \(why)"
        }
    }
}

/// Why a switch has to wait.
public enum RelayWaitReason: Sendable, Equatable, CustomStringConvertible {
    /// The relay switched less than its minimum interval ago (anti-chatter).
    case minInterval(Duration)
    /// Another member of the interlock group went off less than the dead time ago.
    case deadTime(group: String, Duration)
    /// Another member of the interlock group is on and cannot switch off yet (its own minimum interval).
    case interlockMember(DeviceID, group: String)

    public var description: String {
        switch self {
        case .minInterval(let d): "minimum interval of \(DurationParser.format(d)) between switchings"
        case .deadTime(let g, let d): "dead time of \(DurationParser.format(d)) in interlock group \"\(g)\""
        case .interlockMember(let m, let g): "\"\(m)\" of interlock group \"\(g)\" must switch off first"
        }
    }
}

/// Why a command was refused.
public enum RelayRefusal: Sendable, Equatable, CustomStringConvertible {
    /// No relay with that device id on this node.
    case unknownRelay(DeviceID)
    /// The bank has shut down.
    case shutDown
    /// The relay switched too recently (anti-chatter policy `refuse`).
    case tooSoon(remaining: Duration, minInterval: Duration)
    /// An interlocked relay switched too recently to be switched off (anti-chatter policy `refuse`).
    case interlockMemberTooSoon(DeviceID, remaining: Duration)
    /// The pulse cannot be done on this relay.
    case invalidPulse(String)
    /// The GPIO write failed.
    case hardware(String)

    public var description: String {
        switch self {
        case .unknownRelay(let id): "no relay \"\(id)\" on this node"
        case .shutDown: "the relays are shut down"
        case .tooSoon(let r, let mi): "switched less than \(DurationParser.format(mi)) ago; try again in \(DurationParser.format(r))"
        case .interlockMemberTooSoon(let m, let r): "interlocked \"\(m)\" switched too recently to switch off; try again in \(DurationParser.format(r))"
        case .invalidPulse(let why): why
        case .hardware(let e): e
        }
    }
}

/// What the bank does when a switch has to wait for the minimum interval.
public enum ChatterPolicy: String, Sendable, CaseIterable {
    /// Refuse the command with the time left.
    case refuse
    /// Remember the latest wanted state and switch when allowed (commands in between merge).
    case coalesce
}

/// Why an edge happened.
public enum SwitchCause: Sendable, Equatable, CustomStringConvertible {
    case command
    case pulseEnd
    case watchdog
    /// Switched off so that another member of its interlock group can go on.
    case interlock(for: DeviceID)
    case shutdown

    public var description: String {
        switch self {
        case .command: "command"
        case .pulseEnd: "end of pulse"
        case .watchdog: "max-on watchdog"
        case .interlock(let other): "interlock with \"\(other)\""
        case .shutdown: "shutdown"
        }
    }
}

/// Something the bank did on its own or on a command, for history, MQTT state and people.
public enum RelayEvent: Sendable, Equatable, CustomStringConvertible {
    /// A relay changed state.
    case switched(device: DeviceID, to: DeviceState, cause: SwitchCause)
    /// The max-on watchdog switched a relay off after it had been on for `after`.
    case watchdog(device: DeviceID, after: Duration)
    /// A pending switch was dropped (another member of the group was asked on, or the bank shut down).
    case cancelled(device: DeviceID, wanted: DeviceState, reason: String)
    /// A GPIO write failed while acting on a timer.
    case failed(device: DeviceID, error: String)

    /// The relay the event is about.
    public var device: DeviceID {
        switch self {
        case .switched(let d, _, _), .watchdog(let d, _), .cancelled(let d, _, _), .failed(let d, _): d
        }
    }

    public var description: String {
        switch self {
        case .switched(let d, let s, let c): "\(d) switched \(s.rawValue) (\(c))"
        case .watchdog(let d, let after): "\(d) switched OFF by the max-on watchdog after \(DurationParser.format(after)) on"
        case .cancelled(let d, let s, let why): "\(d): pending switch \(s.rawValue) cancelled: \(why)"
        case .failed(let d, let e): "\(d): \(e)"
        }
    }
}



/// One relay's outcome of a bank-wide step such as shutdown.
public struct RelayOutcome: Sendable, Equatable, CustomStringConvertible {
    public var device: DeviceID
    public var result: RelayResult
    public var description: String { "\(device): \(result)" }

    public init(device: DeviceID, result: RelayResult) {
        self.device = device
        self.result = result
    }
}
