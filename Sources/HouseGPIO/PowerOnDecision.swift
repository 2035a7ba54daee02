import HouseCore

/// What a relay did at power-on, and why.
public struct PowerOnDecision: Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        case policyOff
        case policyOn
        case restored
        /// `restore` with no persisted state: off.
        case nothingToRestore
        /// Several members of an interlock group would be on: all start off.
        case interlockConflict(group: String, members: [DeviceID])
        /// Pulse relays (a door button) always start off.
        case pulseRelay
        /// The controller restarted in the same boot (an upgrade, a crash): the relay keeps the
        /// state it had, whatever its `power_on` (which is for a power cut).
        case keptAcrossRestart
    }

    public var device: DeviceID
    /// The logical value requested with the line.
    public var initial: DeviceState
    /// The state the relay will reach (after `scheduled`, when the bank delays it).
    public var target: DeviceState
    /// Set when an interlocked relay goes on only after the dead time / minimum interval.
    public var scheduled: Duration?
    public var reason: Reason

    public var description: String {
        var s = "\(device): \(target.rawValue)"
        if let scheduled { s += " in \(fmt(scheduled)) (interlocked: starts OFF, dead time first)" }
        switch reason {
        case .policyOff: s += " (power_on: off)"
        case .policyOn: s += " (power_on: on)"
        case .restored: s += " (restored)"
        case .nothingToRestore: s += " (power_on: restore, no saved state)"
        case .interlockConflict(let g, let m): s += " (interlock \"\(g)\": \(m.joined(separator: " and ")) would all be on; at most one may be)"
        case .pulseRelay: s += " (pulse relay)"
        case .keptAcrossRestart: s += " (kept: the controller restarted, the machine did not)"
        }
        return s
    }
}
