import Foundation

/// On-time per device, for the energy query: kWh = hours on x watts / 1000.
///
/// Each device's closed on-intervals are kept in time order with a running total, so the
/// on-time within a range is two binary searches, not a walk over every switch since the start
/// (the energy figure is published after every command).
///
/// Switches within one second are kept as one entry (`coalescing`) with their exact on-time, so
/// the ledger grows with the seconds a device was switched in, not with its switches: a burst
/// of 10,000 commands in a second is one entry, not 5,000 (240 kB). Only a range that starts or
/// ends inside such a second counts that second's on-time in proportion, at most a second off.
public struct EnergyLedger: Sendable, Equatable {
    /// Intervals closed within this time of the start of the latest entry join that entry.
    static let coalescing: Duration = .seconds(1)

    /// One device's closed on-intervals, oldest first, and the on-time up to the end of each.
    struct Intervals: Sendable, Equatable {
        var starts: [WallInstant] = []
        var ends: [WallInstant] = []
        /// `cumulative[i]`: the on-time of entries `0...i`.
        var cumulative: [Duration] = []

        /// Entries kept (an entry is one interval, or the intervals of one second together).
        var count: Int { starts.count }

        mutating func append(_ start: WallInstant, _ end: WallInstant) {
            let length = start.duration(to: end)
            if let last = starts.indices.last, starts[last].duration(to: end) <= EnergyLedger.coalescing {
                ends[last] = end
                cumulative[last] += length
                return
            }
            starts.append(start)
            ends.append(end)
            cumulative.append((cumulative.last ?? .zero) + length)
        }

        /// On-time within `from..<to`.
        func onTime(from: WallInstant, to: WallInstant) -> Duration {
            guard from < to, !ends.isEmpty else { return .zero }
            // First entry ending after `from`, first starting at or after `to`.
            let first = Self.firstIndex(in: ends) { $0 > from }
            let last = Self.firstIndex(in: starts) { $0 >= to }
            guard first < last else { return .zero }
            var total = cumulative[last - 1] - (first > 0 ? cumulative[first - 1] : .zero)
            // The entries at both ends may stick out of the range.
            if starts[first] < from { total -= share(of: first, outside: starts[first].duration(to: from)) }
            if ends[last - 1] > to { total -= share(of: last - 1, outside: to.duration(to: ends[last - 1])) }
            return total
        }

        /// The on-time of entry `i` within `outside` of its span: all of it for one interval (on
        /// all along), in proportion for the intervals of one second together.
        private func share(of i: Int, outside: Duration) -> Duration {
            let span = starts[i].duration(to: ends[i])
            let own = cumulative[i] - (i > 0 ? cumulative[i - 1] : .zero)
            guard span > .zero, own < span else { return outside }
            return own * (outside / span)
        }

        /// The first index whose element satisfies `isAfter` (elements ascending).
        private static func firstIndex(in values: [WallInstant], where isAfter: (WallInstant) -> Bool) -> Int {
            var lo = 0, hi = values.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if isAfter(values[mid]) { hi = mid } else { lo = mid + 1 }
            }
            return lo
        }
    }

    /// Entries kept for `device` (for tests: the ledger's size).
    func entryCount(_ device: DeviceID) -> Int { intervals[device]?.count ?? 0 }

    /// Closed on-intervals per device.
    private var intervals: [DeviceID: Intervals] = [:]
    /// Devices currently on, since when.
    private var onSince: [DeviceID: WallInstant] = [:]

    public init() {}

    /// Records that `device` is `on` from `instant`; returns whether that changed anything (a
    /// device already on is not switched on again).
    @discardableResult
    public mutating func record(_ device: DeviceID, on: Bool, at instant: WallInstant) -> Bool {
        if on {
            guard onSince[device] == nil else { return false }
            onSince[device] = instant
            return true
        }
        guard let start = onSince.removeValue(forKey: device) else { return false }
        if start < instant { intervals[device, default: Intervals()].append(start, instant) }
        return true
    }

    /// Ends every on-interval still open at `instant` (the last moment the controller was known
    /// to run, when the ledger is rebuilt after a restart).
    public mutating func closeAll(at instant: WallInstant) {
        for device in Array(onSince.keys) { record(device, on: false, at: instant) }
    }

    /// Time `device` was on within `start..<end` (an open interval counts up to `now`).
    public func onTime(_ device: DeviceID, from start: WallInstant, to end: WallInstant, now: WallInstant) -> Duration {
        var total = intervals[device]?.onTime(from: start, to: end) ?? .zero
        if let s = onSince[device] {
            let a = max(s, start), b = min(now, end)
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

    /// The `[start, end)` span of a query range in the house's time zone, ending at `now`.
    /// A week starts on Monday.
    public static func span(of range: TimeRange, now: WallInstant, calendar: HouseCalendar) -> (start: WallInstant, end: WallInstant) {
        let today = calendar.localDate(of: now.date)
        let startOfToday = WallInstant(calendar.start(of: today))
        switch range {
        case .today:
            return (startOfToday, now)
        case .yesterday:
            return (WallInstant(calendar.start(of: today.adding(days: -1))), startOfToday)
        case .thisWeek:
            let monday = today.adding(days: -((today.weekday + 5) % 7))
            return (WallInstant(calendar.start(of: monday)), now)
        case .lastHours(let n):
            return (now.advanced(by: .seconds(-3600 * n)), now)
        }
    }
}
