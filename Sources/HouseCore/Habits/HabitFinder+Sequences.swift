import Foundation

extension HabitFinder {
    /// Sequences: for every event, each other subject (not the same device) that followed within
    /// `sequenceGap`; a pair is a habit when it followed `sequenceShare` of the first's events,
    /// often enough and over enough weeks. What follows within two seconds is the same command's
    /// doing (a routine's mode), not a person's next step. Two steps of one of the `apart` sets
    /// (switched together, in either order) are no sequence.
    func sequenceHabits(_ events: [LocalEvent], apart sets: [Set<HabitSubject>] = []) -> [Habit] {
        struct Pair: Hashable { var first: HabitSubject; var then: HabitSubject }
        var firsts: [HabitSubject: Int] = [:]
        var pairs: [Pair: [(event: LocalEvent, gap: Int)]] = [:]
        let gapLimit = sequenceGap.components.seconds
        for (i, a) in events.enumerated() {
            firsts[a.event.subject, default: 0] += 1
            var followed: Set<HabitSubject> = []
            var j = i + 1
            while j < events.count {
                let b = events[j]
                let gap = Int(b.event.time.timeIntervalSince(a.event.time).rounded())
                if gap > gapLimit { break }
                j += 1
                let s = b.event.subject
                guard gap >= 2, s != a.event.subject, s.device == nil || s.device != a.event.subject.device,
                      followed.insert(s).inserted else { continue }
                pairs[Pair(first: a.event.subject, then: s), default: []].append((a, gap))
            }
        }
        var habits: [Habit] = []
        let sortedPairs = pairs.keys.sorted { ($0.first, $0.then) < ($1.first, $1.then) }
        for pair in sortedPairs where !sets.contains(where: { $0.contains(pair.first) && $0.contains(pair.then) }) {
            let seen = pairs[pair] ?? []
            let outOf = firsts[pair.first] ?? 0
            guard enough(seen.map(\.event.day)), Double(seen.count) >= sequenceShare * Double(outOf),
                  let first = seen.first, let last = seen.last else { continue }
            let gaps = seen.map(\.gap)
            let typical = HabitStatistics.median(gaps)
            let within = Swift.max(60, ((gaps.max() ?? 0) + 59) / 60 * 60)
            habits.append(Habit(
                pattern: .sequence(pair.first, then: pair.then, within: .seconds(within)),
                evidence: HabitEvidence(occurrences: seen.count, outOf: outOf,
                                        spread: .seconds(HabitStatistics.spread(gaps, around: typical)), typical: .seconds(typical),
                                        firstSeen: first.event.event.time, lastSeen: last.event.event.time)))
        }
        return habits
    }
}
