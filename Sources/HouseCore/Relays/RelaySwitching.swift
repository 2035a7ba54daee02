/// The engine's seam to the relays of this node: `HouseGPIO.RelayBank` (the safety rules, on a
/// chip) and, for tests of the engine alone, HouseTesting's `RecordingRelays`. A value the engine
/// owns and calls with the time; what the relays did (each edge, a watchdog, a cancelled switch)
/// is appended to `events`, in order, for the engine to publish and record.
public protocol RelaySwitching: Sendable {
    /// Carries out `command` on `device`'s relay (a relay bank id: a device, or a cover's winding).
    mutating func perform(_ command: RelayCommand, on device: DeviceID, at now: WallInstant, events: inout [RelayEvent]) -> RelayResult
    /// The earliest time a timer (pulse end, max-on watchdog, deferred switch) is due, if any.
    var nextDeadline: WallInstant? { get }
    /// Acts on every timer due at `now`, earliest first.
    mutating func fireDueTimers(at now: WallInstant, events: inout [RelayEvent])
    /// Applies each relay's shutdown policy and releases the lines: nothing switches after it.
    mutating func shutdown(at now: WallInstant, events: inout [RelayEvent]) -> [RelayOutcome]
    /// Every relay's state now.
    var states: [DeviceID: DeviceState] { get }
}
