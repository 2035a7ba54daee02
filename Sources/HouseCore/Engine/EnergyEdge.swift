/// A metered device (one with `watts`) started or stopped using energy: what the daemon records
/// so that the energy figures continue across a restart.
public struct EnergyEdge: Sendable, Equatable {
    public var device: DeviceID
    public var on: Bool
    public var at: WallInstant

    public init(device: DeviceID, on: Bool, at: WallInstant) {
        self.device = device
        self.on = on
        self.at = at
    }
}
