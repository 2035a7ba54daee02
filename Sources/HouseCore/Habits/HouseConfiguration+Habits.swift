import Foundation

extension HouseConfiguration {
    /// The suggestions the habits in `history` make, up to `now` (an argument: never the
    /// machine's clock), without those already answered unless `answered` is true; none when
    /// `suggestions.enabled` is false.
    public func habitSuggestions(from history: [HabitEvent], now: Date, answered: Bool = false) -> [HabitSuggestion] {
        guard suggestions.enabled else { return [] }
        let all = HabitSuggester(configuration: self).suggestions(for: HabitFinder(configuration: self).habits(in: history, now: now))
        return answered ? all : all.filter { !suggestions.answers.answered($0.id) }
    }

    /// Whether running `intent` does what `subject` did: the same routine or mode, the same
    /// device switched the same way, or (`throughModes`) a mode that switches the device so.
    public func intent(_ intent: IntentSpec, does subject: HabitSubject, throughModes: Bool = true) -> Bool {
        switch (intent, subject) {
        case (.routine(let a), .routine(let b)): return a == b
        case (.mode(let a, _, _), .mode(let b)): return a == b
        case (.control(_, let device, let action), .device(let id, let did)):
            return action == did && device == id.rawValue
        case (.mode(let m, _, _), .device(let id, let action)):
            guard throughModes, let mode = mode(id: m) else { return false }
            switch action {
            case .on: return mode.devices[id] == .on
            case .off: return mode.devices[id] == .off
            case .open: return mode.covers[id] == 100
            case .close: return mode.covers[id] == 0
            default: return false
            }
        default: return false
        }
    }

    /// The time-of-day habits that hold at `instant` (its weekday is one of theirs, its time in
    /// their window), strongest first: by the routines that do them (a routine's own habit, or
    /// what its intent is: a mode that also switches the hall light does not make the hall light
    /// a habit of its routine), and the others, with what they do as a phrase.
    public func habitsHolding(_ habits: [Habit], at instant: Date) -> (byRoutine: [RoutineID: Habit], others: [(habit: Habit, phrase: String)]) {
        let calendar = HouseCalendar(house: house)
        let today = calendar.localDate(of: instant)
        var holding: [(Habit, HabitSubject)] = []
        for habit in habits {
            guard case .timeOfDay(let subject, _, _, _) = habit.pattern else { continue }
            // Yesterday's too: a window across midnight belongs to the day it starts on.
            let holds = [today.adding(days: -1), today].contains { day in
                habit.window(on: day, calendar: calendar).map { $0.start <= instant && instant < $0.end } ?? false
            }
            if holds { holding.append((habit, subject)) }
        }
        holding.sort { share($0.0) > share($1.0) }
        var byRoutine: [RoutineID: Habit] = [:]
        var others: [(habit: Habit, phrase: String)] = []
        let suggester = HabitSuggester(configuration: self)
        for (habit, subject) in holding {
            let routines = routines.filter { intent($0.intent, does: subject, throughModes: false) }
            for r in routines where byRoutine[r.id] == nil { byRoutine[r.id] = habit }
            if routines.isEmpty { others.append((habit, suggester.verb(subject))) }
        }
        return (byRoutine, others)
    }

    private func share(_ habit: Habit) -> Double {
        Double(habit.evidence.occurrences) / Double(max(1, habit.evidence.outOf))
    }
}
