import HouseCore

/// A relay as the bank sees it, for listings and persistence.
public struct RelayStatus: Sendable, Equatable {
    public var channel: RelayLayout.Channel
    public var state: DeviceState
    /// The state a pending switch will reach, if one waits for its time.
    public var pendingState: DeviceState?
    /// Time until the pending switch.
    public var pendingAfter: Duration?
    /// Time until the pulse end or the max-on watchdog switches it off.
    public var autoOffAfter: Duration?
}
