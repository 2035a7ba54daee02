import HouseCore

extension RelayBank {
    /// The relays of `node` in `configuration` (its board profile and devices), powered on.
    ///
    /// - Parameters:
    ///   - deadTimes: dead time per interlock group id; other groups get `RelayLayout.defaultDeadTime`.
    ///   - persisted: last known state per device id, for `power_on: restore`.
    public init(
        configuration: HouseConfiguration, node: NodeID, chip: any GPIOChip, at now: WallInstant,
        persisted: [DeviceID: DeviceState] = [:], deadTimes: [String: Duration] = [:], chatterPolicy: ChatterPolicy = .coalesce
    ) throws(GPIOError) {
        let layout = try RelayLayout(configuration: configuration, node: node, deadTimes: deadTimes)
        try self.init(layout: layout, chip: chip, at: now, persisted: persisted, chatterPolicy: chatterPolicy)
    }
}
