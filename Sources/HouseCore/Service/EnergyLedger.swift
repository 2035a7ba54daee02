import Foundation

/// On-time per device, for the energy query: kWh = hours on x watts / 1000.
public struct EnergyLedger: Sendable, Equatable {
    /// Closed on-intervals per device.
    private var intervals: [DeviceID: [(start: WallInstant, end: WallInstant)]] = [:]
    /// Devices currently on, since when.
    private var onSince: [DeviceID: WallInstant] = [:]

    public init() {}

    /// Records that `device` is `on` from `instant`.
    public mutating func record(_ device: DeviceID, on: Bool, at instant: WallInstant) {
        if on {
            if onSince[device] == nil { onSince[device] = instant }
        } else if let start = onSince.removeValue(forKey: device) {
            if start < instant { intervals[device, default: []].append((start, instant)) }
        }
    }

    /// Time `device` was on within `start..<end` (an open interval counts up to `now`).
    public func onTime(_ device: DeviceID, from start: WallInstant, to end: WallInstant, now: WallInstant) -> Duration {
        var spans = intervals[device] ?? []
        if let s = onSince[device] { spans.append((s, now)) }
        var total = Duration.zero
        for span in spans {
            let a = max(span.start, start), b = min(span.end, end)
            if a < b { total += a.duration(to: b) }
        }
        return total
    }

    /// Kilowatt-hours used by `devices` within `start..<end`.
    public func kilowattHours(_ devices: [Device], from start: WallInstant, to end: WallInstant, now: WallInstant) -> Double {
        devices.reduce(0) { sum, d in
            guard let watts = d.watts, watts > 0 else { return sum }
            let t = onTime(d.id, from: start, to: end, now: now).components
            let hours = (Double(t.seconds) + Double(t.attoseconds) / 1e18) / 3600
            return sum + watts * hours / 1000
        }
    }

    public static func == (a: EnergyLedger, b: EnergyLedger) -> Bool {
        a.onSince == b.onSince && a.intervals.mapValues { $0.map { [$0.start, $0.end] } } == b.intervals.mapValues { $0.map { [$0.start, $0.end] } }
    }

    /// The `[start, end)` span of a query range in the house's time zone, ending at `now`.
    public static func span(of range: TimeRange, now: WallInstant, timeZone: TimeZone) -> (start: WallInstant, end: WallInstant) {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = timeZone
        cal.firstWeekday = 2
        let startOfToday = WallInstant(cal.startOfDay(for: now.date))
        switch range {
        case .today:
            return (startOfToday, now)
        case .yesterday:
            let y = cal.date(byAdding: .day, value: -1, to: startOfToday.date).map(WallInstant.init) ?? startOfToday
            return (y, startOfToday)
        case .thisWeek:
            let week = cal.dateInterval(of: .weekOfYear, for: now.date).map { WallInstant($0.start) } ?? startOfToday
            return (week, now)
        case .lastHours(let n):
            return (now.advanced(by: .seconds(-3600 * n)), now)
        }
    }
}
