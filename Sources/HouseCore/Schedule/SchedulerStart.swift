/// What starting the scheduler owes the house.
public struct SchedulerStart: Sendable, Hashable {
    /// Runs missed while the controller was down, to run now (oldest first).
    public var catchUp: [ScheduledRun]
    /// The mode the routines say the house should be in now.
    public var desiredState: DesiredState?

    public init(catchUp: [ScheduledRun], desiredState: DesiredState?) {
        self.catchUp = catchUp
        self.desiredState = desiredState
    }
}
