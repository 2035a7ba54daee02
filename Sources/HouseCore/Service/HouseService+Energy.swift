/// Energy across restarts: the ledger is rebuilt from the recorded edges, and every new edge of
/// a metered device goes to the recorder.
extension HouseService {
    /// Rebuilds the energy ledger from `edges` (oldest first) recorded by earlier runs; what was
    /// still on is counted up to `end` (when the controller last ran), since nobody knows what
    /// happened while it was down. Call before the current states are noted.
    public func restoreEnergy(_ edges: [EnergyEdge], end: WallInstant?) {
        for edge in edges { ledger.record(edge.device, on: edge.on, at: edge.at) }
        // Not before the last edge (a watchdog's, say, after the last command).
        if let last = [end, edges.last?.at].compactMap({ $0 }).max() { ledger.closeAll(at: last) }
    }

    /// Calls `recorder` with every edge of a metered device from now on.
    public func recordEnergy(with recorder: @escaping @Sendable (EnergyEdge) -> Void) {
        energyRecorder = recorder
    }

    /// Kilowatt-hours today per metered device (those with `watts`), by id.
    public func energyTodayByDevice() -> [(device: Device, kWh: Double)] {
        configuration.devices.filter { ($0.watts ?? 0) > 0 }.map { ($0, energyUsed(in: .today, devices: [$0])) }
    }
}
