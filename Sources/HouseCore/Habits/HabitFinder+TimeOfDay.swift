import Foundation

extension HabitFinder {
    /// Time-of-day habits: per subject, the densest band of the clock (`bandMinutes` wide, around
    /// midnight too) by days seen, then the next densest of what is left, while a band holds
    /// enough days. A band's days are the weekdays it was seen on at least `dayShare` of the
    /// days the house was lived in (a day without any event is a day away, not a miss); it is a
    /// habit when seen on `minShare` of those days.
    func timeOfDayHabits(_ events: [LocalEvent], now: Date) -> [Habit] {
        var chances = [Int](repeating: 0, count: 8)
        for day in Set(events.map(\.day)) { chances[day.weekday] += 1 }
        var bySubject: [HabitSubject: [LocalEvent]] = [:]
        for e in events { bySubject[e.event.subject, default: []].append(e) }
        var habits: [Habit] = []
        for subject in bySubject.keys.sorted() {
            var pool = bySubject[subject] ?? []
            while let (band, start) = densestBand(pool) {
                let taken = Set(band.map(\.event))
                pool.removeAll { taken.contains($0.event) }
                if let habit = timeOfDayHabit(subject, band: band, start: start, chances: chances) { habits.append(habit) }
            }
        }
        return habits
    }

    /// The band of the clock `bandMinutes` wide holding events on the most days (the earliest such
    /// band on a tie), with its starting minute; nil when no band holds `minOccurrences` days.
    func densestBand(_ pool: [LocalEvent]) -> (events: [LocalEvent], start: Int)? {
        guard pool.count >= settings.minOccurrences else { return nil }
        let sorted = pool.sorted { $0.minute != $1.minute ? $0.minute < $1.minute : HabitEvent.precedes($0.event, $1.event) }
        let n = sorted.count
        func minute(_ k: Int) -> Int { sorted[k % n].minute + (k >= n ? 1440 : 0) }
        var daysInBand: [LocalDate: Int] = [:]
        var best: (days: Int, from: Int, to: Int)?
        var j = 0
        for i in 0..<n {
            while j < i + n && minute(j) < minute(i) + bandMinutes {
                daysInBand[sorted[j % n].day, default: 0] += 1
                j += 1
            }
            if best == nil || daysInBand.count > best!.days { best = (daysInBand.count, i, j) }
            let day = sorted[i].day
            daysInBand[day]! -= 1
            if daysInBand[day] == 0 { daysInBand[day] = nil }
        }
        guard let best, best.days >= settings.minOccurrences else { return nil }
        return ((best.from..<best.to).map { sorted[$0 % n] }, sorted[best.from].minute)
    }

    private func timeOfDayHabit(_ subject: HabitSubject, band: [LocalEvent], start: Int, chances: [Int]) -> Habit? {
        // One occurrence a day, the first in the band; a band across midnight belongs to the day
        // it starts on (as a window across midnight does), so 00:05 counts for the evening before.
        var firstOfDay: [LocalDate: LocalEvent] = [:]
        for var e in band {
            if e.minute < start { e.day = e.day.adding(days: -1) }
            if firstOfDay[e.day].map({ e.event.time < $0.event.time }) ?? true { firstOfDay[e.day] = e }
        }
        var seen = [Int](repeating: 0, count: 8)
        for day in firstOfDay.keys { seen[day.weekday] += 1 }
        guard let weekdays = habitDays(seen: seen, chances: chances) else { return nil }
        let matched = firstOfDay.values.filter { weekdays.contains($0.day.weekday) }.sorted { $0.event.time < $1.event.time }
        let outOf = weekdays.reduce(0) { $0 + chances[$1] }
        guard enough(matched.map(\.day)), Double(matched.count) >= minShare * Double(outOf),
              let first = matched.first, let last = matched.last else { return nil }
        let offsets = matched.map { ($0.minute - start + 1440) % 1440 }
        let center = HabitStatistics.median(offsets)
        let spread = HabitStatistics.spread(offsets, around: center)
        let median = (start + center) % 1440
        let half = max(15, 2 * spread)
        let from = ((median - half + 1440) / 15 * 15) % 1440
        let to = ((median + half + 14) / 15 * 15) % 1440
        let evidence = HabitEvidence(occurrences: matched.count, outOf: outOf, medianTime: Self.time(median),
                                     spread: .seconds(spread * 60), firstSeen: first.event.time, lastSeen: last.event.time)
        return Habit(pattern: .timeOfDay(subject, days: DaySet(weekdays: weekdays), from: Self.time(from), to: Self.time(to)),
                     evidence: evidence)
    }

    /// The days of a habit seen `seen[weekday]` times of `chances[weekday]`: the weekdays seen on
    /// `dayShare` of their days, or the smallest of every day, weekdays and weekends that adds
    /// at most one weekday seen on half as many.
    func habitDays(seen: [Int], chances: [Int]) -> Set<Int>? {
        func share(_ w: Int) -> Double { chances[w] == 0 ? 0 : Double(seen[w]) / Double(chances[w]) }
        let days = Set((1...7).filter { chances[$0] > 0 && share($0) >= dayShare })
        guard !days.isEmpty else { return nil }
        for named in [DaySet.weekends, .weekdaysOnly, .everyDay].map(\.weekdays) where named.isSuperset(of: days) {
            let added = named.subtracting(days)
            if added.count <= 1, added.allSatisfy({ share($0) >= dayShare / 2 }) { return named }
        }
        return days
    }

    static func time(_ minute: Int) -> TimeOfDay {
        let m = (minute % 1440 + 1440) % 1440
        return TimeOfDay(hour: m / 60, minute: m % 60)
    }
}
