import Foundation

/// One run of a routine: when it is due and why then.
public struct ScheduledRun: Sendable, Hashable, CustomStringConvertible {
    public var routineID: RoutineID
    /// The local day the run belongs to (its window's start day, for a midnight-crossing window).
    public var day: LocalDate
    /// The planned instant before jitter (after any daylight-saving adjustment).
    public var nominal: Date
    /// The instant it runs: `nominal` plus jitter, or the start instant for a catch-up.
    public var due: Date
    /// The relevance window the run belongs to, if the routine has one.
    public var window: TimeWindow?
    public var reason: RunReason

    public init(routineID: RoutineID, day: LocalDate, nominal: Date, due: Date, window: TimeWindow?, reason: RunReason) {
        self.routineID = routineID
        self.day = day
        self.nominal = nominal
        self.due = due
        self.window = window
        self.reason = reason
    }

    public var description: String { "\(routineID) due \(due) (\(reason))" }

    /// What identifies a run across restarts: its routine and nominal instant (a catch-up of a
    /// run is the same run).
    public struct Key: Sendable, Hashable, CustomStringConvertible {
        public var routineID: RoutineID
        /// The nominal instant in whole seconds since 1970.
        public var nominalSecond: Int64

        public init(routineID: RoutineID, nominal: Date) {
            self.routineID = routineID
            self.nominalSecond = Int64(nominal.timeIntervalSince1970.rounded())
        }

        public var description: String { "\(routineID)@\(nominalSecond)" }
    }

    /// This run's identity.
    public var key: Key { Key(routineID: routineID, nominal: nominal) }
}
