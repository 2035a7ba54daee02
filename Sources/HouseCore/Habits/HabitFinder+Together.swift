import Foundation

extension HabitFinder {
    /// Together: devices switched the same way (on, off, opened, closed) within `togetherGap` of
    /// each other, as a set: in either order, or so close that the order is no step of its own
    /// (at most `togetherOrderless` apart). A pair is together when it went together on
    /// `minShare` of the times the more often switched of the two was switched, often enough and
    /// over enough weeks; pairs that share a device are one set when every pair of it is together.
    /// Hall light, then kitchen light two minutes later, always in that order, is a sequence.
    func togetherHabits(_ events: [LocalEvent]) -> [Habit] {
        struct Pair: Hashable { var a: HabitSubject; var b: HabitSubject }
        var counts: [HabitSubject: Int] = [:]
        var seen: [Pair: [(event: LocalEvent, gap: Int, inOrder: Bool)]] = [:]
        let limit = Int(togetherGap.components.seconds)
        for (i, first) in events.enumerated() {
            guard case .device(let d, let action) = first.event.subject else { continue }
            counts[first.event.subject, default: 0] += 1
            var j = i + 1
            var partners: Set<DeviceID> = []
            while j < events.count {
                let next = events[j]
                j += 1
                let gap = Int(next.event.time.timeIntervalSince(first.event.time).rounded())
                if gap > limit { break }
                guard case .device(let e, let other) = next.event.subject, other == action, e != d, partners.insert(e).inserted else { continue }
                let inOrder = first.event.subject < next.event.subject
                let pair = inOrder ? Pair(a: first.event.subject, b: next.event.subject) : Pair(a: next.event.subject, b: first.event.subject)
                seen[pair, default: []].append((first, gap, inOrder))
            }
        }
        // Each pair that holds, by its subjects.
        var together: [Pair: [(event: LocalEvent, gap: Int, inOrder: Bool)]] = [:]
        for (pair, list) in seen {
            // One occurrence per first event: a burst of repeated switching counts once.
            var byTime: [Date: (event: LocalEvent, gap: Int, inOrder: Bool)] = [:]
            for item in list where byTime[item.event.event.time] == nil { byTime[item.event.event.time] = item }
            let items = byTime.values.sorted { $0.event.event.time < $1.event.event.time }
            let most = max(counts[pair.a] ?? 0, counts[pair.b] ?? 0)
            let forward = items.filter(\.inOrder).count
            let orderless = min(forward, items.count - forward) * 5 >= items.count
                || HabitStatistics.median(items.map(\.gap)) <= Int(togetherOrderless.components.seconds)
            guard orderless, enough(items.map(\.event.day)), Double(items.count) >= minShare * Double(most) else { continue }
            together[pair] = items
        }
        // Sets: subjects joined by pairs that hold, kept whole when every pair of them holds.
        var partners: [HabitSubject: Set<HabitSubject>] = [:]
        for pair in together.keys {
            partners[pair.a, default: []].insert(pair.b)
            partners[pair.b, default: []].insert(pair.a)
        }
        var done: Set<HabitSubject> = []
        var habits: [Habit] = []
        for start in partners.keys.sorted() where !done.contains(start) {
            var group: Set<HabitSubject> = [start], queue = [start]
            while let s = queue.popLast() {
                for p in partners[s] ?? [] where group.insert(p).inserted { queue.append(p) }
            }
            done.formUnion(group)
            let members = group.sorted()
            let pairs = members.indices.flatMap { i in members[(i + 1)...].map { Pair(a: members[i], b: $0) } }
            let sets: [[HabitSubject]] = pairs.allSatisfy { together[$0] != nil } ? [members]
                : pairs.filter { together[$0] != nil }.map { [$0.a, $0.b] }
            for set in sets {
                // The occurrences of a set: those of its first two members' pair (for a pair, all
                // of it) where every other member was switched within the gap too.
                let others = set.dropFirst(2)
                let items = (together[Pair(a: set[0], b: set[1])] ?? []).filter { item in
                    others.allSatisfy { member in
                        events.contains { $0.event.subject == member && abs($0.event.time.timeIntervalSince(item.event.event.time)) <= Double(limit) }
                    }
                }
                guard enough(items.map(\.event.day)), let first = items.first, let last = items.last else { continue }
                let gaps = items.map(\.gap)
                let typical = HabitStatistics.median(gaps)
                let most = set.map { counts[$0] ?? 0 }.max() ?? items.count
                habits.append(Habit(
                    pattern: .together(set, within: .seconds(Swift.max(60, ((gaps.max() ?? 0) + 59) / 60 * 60))),
                    evidence: HabitEvidence(occurrences: items.count, outOf: most,
                                            spread: .seconds(HabitStatistics.spread(gaps, around: typical)), typical: .seconds(typical),
                                            firstSeen: first.event.event.time, lastSeen: last.event.event.time)))
            }
        }
        return habits
    }
}
