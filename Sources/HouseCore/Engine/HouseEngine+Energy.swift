/// Energy: the ledger, rebuilt from the recorded edges across restarts (every new edge of a
/// metered device is an `Effects.Record.energyEdge`), and the figures published from it.
extension HouseEngine {
    /// Rebuilds the energy ledger from `edges` (oldest first) recorded by earlier runs; what was
    /// still on is counted up to `end` (when the controller last ran), since nobody knows what
    /// happened while it was down. Call before the current states are noted.
    public func restoreEnergy(_ edges: [EnergyEdge], end: WallInstant?) {
        for edge in edges { ledger.record(edge.device, on: edge.on, at: edge.at) }
        // Not before the last edge (a watchdog's, say, after the last command).
        if let last = [end, edges.last?.at].compactMap({ $0 }).max() { ledger.closeAll(at: last) }
    }

    /// Kilowatt-hours today per metered device (those with `watts`), by id.
    public func energyTodayByDevice() -> [(device: Device, kWh: Double)] {
        configuration.devices.filter { ($0.watts ?? 0) > 0 }.map { ($0, energyUsed(in: .today, devices: [$0])) }
    }
}

extension HouseEngine {
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

extension HouseEngine {
    /// Kilowatt-hours used over `range` (in the house's time zone) by `devices`, or the whole house.
    public func energyUsed(in range: TimeRange, devices: [Device]? = nil) -> Double {
        let now = clock.now
        let span: (start: WallInstant, end: WallInstant)
        if case .today = range {
            span = (startOfToday(now), now)
        } else {
            span = EnergyLedger.span(of: range, now: now, calendar: HouseCalendar(house: configuration.house))
        }
        return ledger.kilowattHours(devices ?? configuration.devices, from: span.start, to: span.end, now: now)
    }

    /// The start of the house's day at `now` (kept until the day ends).
    private func startOfToday(_ now: WallInstant) -> WallInstant {
        if let today, today.start <= now, now < today.end { return today.start }
        let calendar = HouseCalendar(house: configuration.house)
        let day = calendar.localDate(of: now.date)
        let start = WallInstant(calendar.start(of: day))
        today = (start, WallInstant(calendar.start(of: day.adding(days: 1))))
        return start
    }

    /// Publishes today's energy use in kWh, retained (Home Assistant's energy sensors), unless
    /// the figure is the one already published and `force` is false: the house's, and with
    /// `perDevice` each metered device's (once a minute and after a reconnect).
    func publishEnergy(force: Bool = false, perDevice: Bool = false) {
        guard isPrimary else { return }
        energyPublished = clock.now
        let text = Self.kilowattHoursText(energyUsed(in: .today))
        if force || text != lastEnergy {
            lastEnergy = text
            effects.publish(layout.energyState, text, retain: true)
        }
        guard perDevice else { return }
        for (device, kWh) in energyTodayByDevice() {
            let text = Self.kilowattHoursText(kWh)
            if !force && lastDeviceEnergy[device.id] == text { continue }
            lastDeviceEnergy[device.id] = text
            effects.publish(layout.deviceEnergy(room: device.room, device: device.id), text, retain: true)
        }
    }

    /// kWh with three decimals ("1.234").
    public static func kilowattHoursText(_ kWh: Double) -> String {
        let wattHours = Int64((max(kWh, 0) * 1000).rounded())
        let fraction = String(wattHours % 1000)
        return "\(wattHours / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
