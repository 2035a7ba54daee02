import Foundation
import HouseCore

/// A simulated household for the habit finder's tests and benchmark: days of history made of
/// injected habits (with jitter, skipped days, holidays) and random switching as noise, from a
/// seeded generator (never the system's random numbers or clock). Local times are the house's,
/// so a habit at 06:40 stays at 06:40 across a change of daylight saving time.
public struct HouseholdSimulator: Sendable {
    /// A habit to inject.
    public enum InjectedHabit: Sendable, Hashable {
        /// `subject` at `at` ± `jitterMinutes` on `days` (a device switched on is switched off
        /// again 1 to 6 hours later).
        case timeOfDay(HabitSubject, days: DaySet, at: TimeOfDay)
        /// `first` at a random time of day, then `then` within `gapSeconds`.
        case sequence(HabitSubject, then: HabitSubject, gapSeconds: ClosedRange<Int>)
        /// `device` switched on at a random time and off again after `minutes` ± a tenth.
        case duration(DeviceID, minutes: Int)
        /// `subjects` at a random time, in a random order, each within `gapSeconds` of the one before.
        case together([HabitSubject], gapSeconds: ClosedRange<Int>)
    }

    public var calendar: HouseCalendar
    public var seed: UInt64
    /// The devices random switching picks from.
    public var noiseDevices: [DeviceID]
    /// The modes random mode changes pick from.
    public var noiseModes: [ModeID] = []
    /// Random on-and-off pairs a day.
    public var noisePerDay = 3
    /// The chance that a habit is skipped on one of its days.
    public var skipChance = 0.15
    /// How far a time-of-day habit strays from its time, either way.
    public var jitterMinutes = 15
    /// Days the household is away: no events at all.
    public var holidays: Set<LocalDate> = []

    public init(calendar: HouseCalendar, seed: UInt64, noiseDevices: [DeviceID]) {
        self.calendar = calendar
        self.seed = seed
        self.noiseDevices = noiseDevices
    }

    /// `days` days of history from `start`, sorted by time.
    public func history(from start: LocalDate, days: Int, habits: [InjectedHabit]) -> [HabitEvent] {
        var rng = SeededJitterGenerator(seed: seed)
        var events: [HabitEvent] = []
        func at(_ day: LocalDate, minute: Int, second: Int = 0) -> Date {
            let d = day.adding(days: Int((Double(minute) / 1440).rounded(.down)))
            let m = (minute % 1440 + 1440) % 1440
            return calendar.resolve(TimeOfDay(hour: m / 60, minute: m % 60), on: d).earliest.addingTimeInterval(Double(second))
        }
        func off(after subject: HabitSubject, at time: Date, minutes: ClosedRange<Int>) {
            guard case .device(let id, .on) = subject else { return }
            events.append(HabitEvent(time: time.addingTimeInterval(Double(Int.random(in: minutes, using: &rng) * 60)), subject: .device(id, .off)))
        }
        for offset in 0..<days {
            let day = start.adding(days: offset)
            if holidays.contains(day) { continue }
            for habit in habits {
                switch habit {
                case .timeOfDay(let subject, let days, let time):
                    guard days.contains(weekday: day.weekday), Double.random(in: 0..<1, using: &rng) >= skipChance else { continue }
                    let minute = time.minutesSinceMidnight + Int.random(in: -jitterMinutes...jitterMinutes, using: &rng)
                    let t = at(day, minute: minute, second: Int.random(in: 0..<60, using: &rng))
                    events.append(HabitEvent(time: t, subject: subject))
                    off(after: subject, at: t, minutes: 60...360)
                case .sequence(let first, let then, let gap):
                    guard Double.random(in: 0..<1, using: &rng) >= skipChance else { continue }
                    let t = at(day, minute: Int.random(in: 8 * 60...21 * 60, using: &rng))
                    let u = t.addingTimeInterval(Double(Int.random(in: gap, using: &rng)))
                    events += [HabitEvent(time: t, subject: first), HabitEvent(time: u, subject: then)]
                    off(after: first, at: t, minutes: 30...240)
                    off(after: then, at: u, minutes: 30...240)
                case .duration(let device, let minutes):
                    guard Double.random(in: 0..<1, using: &rng) >= skipChance else { continue }
                    let t = at(day, minute: Int.random(in: 8 * 60...20 * 60, using: &rng))
                    let spread = max(1, minutes / 10)
                    let length = (minutes + Int.random(in: -spread...spread, using: &rng)) * 60 + Int.random(in: 0..<60, using: &rng)
                    events += [HabitEvent(time: t, subject: .device(device, .on)),
                               HabitEvent(time: t.addingTimeInterval(Double(length)), subject: .device(device, .off))]
                case .together(let subjects, let gap):
                    guard Double.random(in: 0..<1, using: &rng) >= skipChance else { continue }
                    var t = at(day, minute: Int.random(in: 8 * 60...21 * 60, using: &rng))
                    for subject in subjects.shuffled(using: &rng) {
                        events.append(HabitEvent(time: t, subject: subject))
                        off(after: subject, at: t, minutes: 30...240)
                        t = t.addingTimeInterval(Double(Int.random(in: gap, using: &rng)))
                    }
                }
            }
            for _ in 0..<noisePerDay where !noiseDevices.isEmpty {
                let device = noiseDevices[Int.random(in: 0..<noiseDevices.count, using: &rng)]
                let t = at(day, minute: Int.random(in: 7 * 60...23 * 60 + 30, using: &rng), second: Int.random(in: 0..<60, using: &rng))
                events.append(HabitEvent(time: t, subject: .device(device, .on)))
                off(after: .device(device, .on), at: t, minutes: 5...240)
            }
            if !noiseModes.isEmpty, Double.random(in: 0..<1, using: &rng) < 0.3 {
                let mode = noiseModes[Int.random(in: 0..<noiseModes.count, using: &rng)]
                events.append(HabitEvent(time: at(day, minute: Int.random(in: 7 * 60...23 * 60, using: &rng)), subject: .mode(mode)))
            }
        }
        return events.sorted { $0.time != $1.time ? $0.time < $1.time : $0.subject < $1.subject }
    }

    /// `events` as the JSON lines `housectl suggestions --from-history` reads, times in the
    /// house's zone with their offset.
    public func jsonLines(_ events: [HabitEvent]) -> String {
        events.map { e in
            let time = calendar.iso8601Text(e.time)
            return switch e.subject {
            case .device(let id, let action): "{\"time\": \"\(time)\", \"device\": \"\(id)\", \"action\": \"\(action.rawValue)\"}"
            case .mode(let id): "{\"time\": \"\(time)\", \"mode\": \"\(id)\"}"
            case .routine(let id): "{\"time\": \"\(time)\", \"routine\": \"\(id)\"}"
            }
        }.joined(separator: "\n") + "\n"
    }
}
