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

extension HouseService {
    /// One local day's energy per metered device.
    public struct EnergyDay: Sendable, Equatable, Codable {
        /// `YYYY-MM-DD` in the house's zone.
        public var day: String
        /// Kilowatt-hours per device id (every metered device, 0 included).
        public var kWh: [DeviceID: Double]
    }

    /// Kilowatt-hours per metered device for each of the last `days` local days, oldest first,
    /// today (so far) last; as far back as the ledger reaches (35 days of recorded edges).
    public func energyByDay(days: Int) -> [EnergyDay] {
        let calendar = HouseCalendar(house: configuration.house)
        let now = clock.now
        let today = calendar.localDate(of: now.date)
        let metered = configuration.devices.filter { ($0.watts ?? 0) > 0 }
        return (0..<max(1, min(days, 35))).reversed().map { back in
            let day = today.adding(days: -back)
            let start = WallInstant(calendar.start(of: day))
            let end = min(now, WallInstant(calendar.start(of: day.adding(days: 1))))
            var kWh: [DeviceID: Double] = [:]
            for device in metered { kWh[device.id] = ledger.kilowattHours([device], from: start, to: end, now: now) }
            return EnergyDay(day: day.description, kWh: kWh)
        }
    }
}
