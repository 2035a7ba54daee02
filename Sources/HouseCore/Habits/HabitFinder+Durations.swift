import Foundation

extension HabitFinder {
    /// Durations: each device switched on (opened) and then off (closed), the time between; the
    /// largest group of times within `durationRatio` of each other is a habit when it holds
    /// `minShare` of the device's on-and-off pairs, often enough and over enough weeks, and lasts
    /// at least two minutes (shorter is a pulse, not a forgotten light).
    func durationHabits(_ events: [LocalEvent]) -> [Habit] {
        var byDevice: [DeviceID: [LocalEvent]] = [:]
        for e in events {
            if let d = e.event.subject.device { byDevice[d, default: []].append(e) }
        }
        var habits: [Habit] = []
        for device in byDevice.keys.sorted() {
            let list = byDevice[device] ?? []
            var spans: [(event: LocalEvent, end: Date, seconds: Int)] = []
            for (a, b) in zip(list, list.dropFirst()) {
                guard case .device(_, let on) = a.event.subject, case .device(_, let off) = b.event.subject,
                      (on == .on && off == .off) || (on == .open && off == .close) else { continue }
                spans.append((a, b.event.time, Int(b.event.time.timeIntervalSince(a.event.time).rounded())))
            }
            guard spans.count >= settings.minOccurrences else { continue }
            let sorted = spans.sorted { $0.seconds != $1.seconds ? $0.seconds < $1.seconds : $0.event.event.time < $1.event.event.time }
            var best = (from: 0, to: 0)
            var j = 0
            for i in sorted.indices {
                j = Swift.max(j, i)
                while j < sorted.count && Double(sorted[j].seconds) <= durationRatio * Double(sorted[i].seconds) { j += 1 }
                if j - i > best.to - best.from { best = (i, j) }
            }
            let group = sorted[best.from..<best.to].sorted { $0.event.event.time < $1.event.event.time }
            let seconds = group.map(\.seconds)
            let typical = HabitStatistics.median(seconds)
            guard typical >= 120, enough(group.map(\.event.day)), Double(group.count) >= minShare * Double(spans.count),
                  let first = group.first, let last = group.last else { continue }
            let upTo = ((seconds.max() ?? typical) + 299) / 300 * 300
            habits.append(Habit(
                pattern: .duration(device, upTo: .seconds(upTo)),
                evidence: HabitEvidence(occurrences: group.count, outOf: spans.count,
                                        spread: .seconds(HabitStatistics.spread(seconds, around: typical)), typical: .seconds(typical),
                                        firstSeen: first.event.event.time, lastSeen: last.end)))
        }
        return habits
    }
}
