import Foundation

/// The reconciled desired state at an instant: which mode the routines say the house is in.
public struct DesiredState: Sendable, Hashable {
    public var mode: ModeID
    /// The routine whose run set it.
    public var routineID: RoutineID
    /// When that run was (nominally) due.
    public var since: Date
    /// When a mode set for a duration ends.
    public var revertsAt: Date?
    /// The mode it then reverts to, if a routine set one before.
    public var revertsTo: ModeID?

    public init(mode: ModeID, routineID: RoutineID, since: Date, revertsAt: Date?, revertsTo: ModeID?) {
        self.mode = mode
        self.routineID = routineID
        self.since = since
        self.revertsAt = revertsAt
        self.revertsTo = revertsTo
    }

    /// The mode intents that put the house in this state at `now`: the mode it reverts to as the
    /// base, then the mode itself for what is left of its duration.
    public func intents(at now: Date) -> [SetHouseModeIntent] {
        guard let revertsAt, revertsAt > now else { return [SetHouseModeIntent(mode: mode.rawValue)] }
        let left = Duration.seconds(revertsAt.timeIntervalSince(now).rounded(.up))
        return (revertsTo.map { [SetHouseModeIntent(mode: $0.rawValue)] } ?? []) + [SetHouseModeIntent(mode: mode.rawValue, duration: left)]
    }
}
