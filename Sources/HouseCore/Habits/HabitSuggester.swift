import Foundation

/// Turns habits into suggestions for a configured house: a time-of-day habit that no routine
/// already offers in its window becomes a new routine, or, inside the window of a routine that
/// sets a mode, an addition to that mode; a duration becomes `max_on`; a sequence becomes a rule.
/// Whatever touches a `confirm: true` device says so. Learnt habits never actuate anything: a
/// suggestion is only text and a snippet until somebody accepts it.
public struct HabitSuggester: Sendable {
    public let configuration: HouseConfiguration
    public let calendar: HouseCalendar

    public init(configuration: HouseConfiguration) {
        self.configuration = configuration
        self.calendar = HouseCalendar(house: configuration.house)
    }

    /// The suggestions for `habits`, in their order; habits already served, or on what the house
    /// does not know, suggest nothing.
    public func suggestions(for habits: [Habit]) -> [HabitSuggestion] {
        var taken = Set(configuration.routines.map(\.id.rawValue))
        var takenModes = Set(configuration.modes.map(\.id.rawValue))
        let switchedOn = Set(habits.compactMap { habit -> Set<DeviceID>? in
            guard case .together(let subjects, _) = habit.pattern, subjects.allSatisfy(\.switchesOn) else { return nil }
            return Set(habit.devices)
        })
        var out: [HabitSuggestion] = []
        for habit in habits {
            let suggestion: HabitSuggestion? = switch habit.pattern {
            case .timeOfDay(let subject, let days, let from, let to):
                timeOfDay(habit, subject: subject, days: days, from: from, to: to, taken: &taken)
            case .sequence(let first, let then, let within):
                sequence(habit, first: first, then: then, within: within)
            case .duration(let device, let upTo):
                duration(habit, device: device, upTo: upTo)
            case .together(let subjects, let within):
                // Switched off together is leaving what switching on together made.
                subjects.allSatisfy(\.switchesOn) || !switchedOn.contains(Set(habit.devices))
                    ? together(habit, subjects: subjects, within: within, taken: &takenModes) : nil
            }
            if let suggestion, !out.contains(where: { $0.id == suggestion.id }) { out.append(suggestion) }
        }
        return out
    }

    // MARK: Time of day

    private func timeOfDay(_ habit: Habit, subject: HabitSubject, days: DaySet, from: TimeOfDay, to: TimeOfDay,
                           taken: inout Set<String>) -> HabitSuggestion? {
        guard let intent = intent(for: subject) else { return nil }
        let median = habit.evidence.medianTime ?? from
        let inWindow = configuration.routines.filter { covers($0, habit) }
        // The history is what people did themselves: a routine that would do the same in this
        // window is not doing it for them (it has no run time, or runs and is undone). Only a
        // routine that runs by itself and is run by hand too serves its own habit.
        if inWindow.contains(where: { $0.runAt != nil && subject == .routine($0.id) }) { return nil }
        let did = "You \(verb(subject)) around \(median) \(daysText(days)), \(habit.evidence.countText)"
        var notes = confirmNotes(for: subject)
        // One id for the habit whatever is offered for it: once one offer is answered (a device
        // added to a routine's mode, say), the habit is not offered again in another form.
        let key = "time-of-day|\(subject.key)|\(days)|\((median.minutesSinceMidnight + 15) / 30 % 48)"
        // A shortcut run by hand, or whose intent it is, relevant then, on no other days: give it
        // the habit's time (not one whose mode merely switches that device too: that would run
        // the whole mode).
        if let routine = inWindow.first(where: {
            $0.runAt == nil && (subject == .routine($0.id) || configuration.intent($0.intent, does: subject, throughModes: false))
                && days.weekdays.isSuperset(of: $0.relevant?.days.weekdays ?? [])
        }) {
            let text = "\(did), and '\(routine.shortcut)' does it (relevant \(window(routine))): give it run_at: \"\(median)\" "
                + "so that it runs by itself?" + noteText(notes)
            return HabitSuggestion(kind: .runAt, key: key, habit: habit, text: text,
                                   yaml: HabitSnippet.runAt(routine: routine.id, at: median), routine: routine.id, mode: mode(of: routine.intent),
                                   confirmNotes: notes)
        }
        if case .device(let id, let action) = subject, action == .on || action == .off,
           let device = configuration.device(id: id), device.motor == nil, device.opener == nil {
            let state: DeviceState = action == .on ? .on : .off
            for routine in inWindow {
                guard case .mode(let modeID, _, _) = routine.intent, let mode = configuration.mode(id: modeID),
                      mode.devices[id] == nil, mode.covers[id] == nil, mode.rooms.isEmpty || mode.rooms.contains(device.room) else { continue }
                notes += confirmNotes(forMode: modeID)
                let text = "\(did), while '\(routine.shortcut)' is relevant (\(window(routine))): add the \(label(id)) "
                    + "\(state.rawValue) to the mode \(modeID) it sets?" + noteText(notes)
                let yaml = HabitSnippet.modeAddition(mode: modeID, device: id, state: state, routine: routine)
                return HabitSuggestion(kind: .addToRoutine, key: key, habit: habit, text: text, yaml: yaml, routine: routine.id,
                                       mode: modeID, confirmNotes: notes)
            }
        }
        let name = HabitSnippet.shortcut(subject: subjectName(subject), days: days, median: median)
        var id = HabitSnippet.slug(name)
        var n = 2
        while taken.contains(id) { id = HabitSnippet.slug(name) + "-\(n)"; n += 1 }
        taken.insert(id)
        let asks = IntentResolver(configuration: configuration).resolve(intent.intent, answers: .none).pendingConfirmation != nil
        if asks { notes.append("the routine says confirmed: true, so that it runs without asking") }
        let text = "\(did): make a routine '\(name)' that does it at \(median), relevant \(from)-\(to)\(days == .everyDay ? "" : " \(daysText(days))")?" + noteText(notes)
        let yaml = HabitSnippet.routine(id: id, shortcut: name, from: from, to: to, days: days, runAt: median, intent: intent, confirmed: asks)
        return HabitSuggestion(kind: .newRoutine, key: key, habit: habit, text: text, yaml: yaml, routine: RoutineID(id),
                               mode: mode(of: intent), confirmNotes: notes)
    }

    /// The mode an intent sets.
    private func mode(of intent: IntentSpec) -> ModeID? {
        if case .mode(let m, _, _) = intent { return m }
        return nil
    }

    /// Whether `routine`'s window holds the habit's window on most of its recent days.
    private func covers(_ routine: Routine, _ habit: Habit) -> Bool {
        guard let spec = routine.relevant else { return false }
        let last = calendar.localDate(of: habit.evidence.lastSeen)
        let recent = (0..<14).compactMap { habit.window(on: last.adding(days: -$0), calendar: calendar) }
        let inside = recent.filter { calendar.window(spec, containing: $0.start) != nil && calendar.window(spec, containing: $0.end.addingTimeInterval(-60)) != nil }
        return !recent.isEmpty && inside.count * 5 >= recent.count * 4
    }

    // MARK: Sequences and durations

    private func sequence(_ habit: Habit, first: HabitSubject, then: HabitSubject, within: Duration) -> HabitSuggestion? {
        guard let intent = intent(for: then) else { return nil }
        let when: HabitSnippet.Trigger
        switch first {
        case .device(let id, let action) where action == .on || action == .off:
            guard let device = configuration.device(id: id), device.motor == nil, device.opener == nil else { return nil }
            when = .device(id, action == .on ? .on : .off)
        case .mode(let id) where configuration.mode(id: id) != nil:
            when = .mode(id)
        default:
            return nil
        }
        // A rule has nobody to say yes, and may be denied what it would switch.
        if IntentResolver(configuration: configuration).resolve(intent.intent, answers: .none).pendingConfirmation != nil { return nil }
        let grant = configuration.permissions.grant(for: .rule)
        if let d = then.device, grant.denyDevices.contains(d) { return nil }
        if case .mode(let m) = then, grant.denyModes.contains(m) { return nil }
        let notes = confirmNotes(for: first) + confirmNotes(for: then)
        let gap = DurationParser.format(within)
        let text = "When you \(verb(first)), you \(verb(then)) within \(gap) (\(habit.evidence.occurrences) of \(habit.evidence.outOf) times, "
            + "typically after \(DurationParser.format(habit.evidence.typical ?? within))): make a rule that does it?" + noteText(notes)
        let id = HabitSnippet.slug(subjectName(first) + " then " + subjectName(then))
        let yaml = HabitSnippet.rule(id: id, when: when, intent: intent)
        return HabitSuggestion(kind: .rule, key: "rule|\(first.key)|\(then.key)", habit: habit, text: text, yaml: yaml, confirmNotes: notes)
    }

    private func duration(_ habit: Habit, device id: DeviceID, upTo: Duration) -> HabitSuggestion? {
        guard let device = configuration.device(id: id), device.relay != nil,
              device.pulse == nil, device.kind.supportedActions.contains(.on) else { return nil }
        if let current = device.maxOn, current <= upTo { return nil }
        var notes: [String] = []
        if device.confirm { notes.append("the \(label(id)) is confirm: true; max_on only switches it off, which needs no yes") }
        let now = device.maxOn.map { " (now \(DurationParser.format($0)))" } ?? ""
        let text = "You switch the \(label(id)) off again after about \(Self.minutes(habit.evidence.typical ?? upTo)), "
            + "\(habit.evidence.occurrences) of \(habit.evidence.outOf) times: give it max_on: \(DurationParser.format(upTo))\(now), "
            + "so that it goes off by itself?" + noteText(notes)
        let quarters = (upTo.components.seconds + 899) / 900
        return HabitSuggestion(kind: .maxOn, key: "max-on|\(id)|\(quarters)", habit: habit, text: text, yaml: HabitSnippet.maxOn(device: id, upTo: upTo),
                               confirmNotes: notes)
    }

    // MARK: Sets

    /// Devices switched together: a mode that switches them so, named after them, for their
    /// rooms; nothing when a mode does exactly that already.
    private func together(_ habit: Habit, subjects: [HabitSubject], within: Duration, taken: inout Set<String>) -> HabitSuggestion? {
        var states: [(device: Device, value: String)] = []
        for subject in subjects {
            guard case .device(let id, let action) = subject, let device = configuration.device(id: id), device.opener == nil,
                  device.kind.supportedActions.contains(action) else { return nil }
            let value: String? = switch (action, device.motor == nil) {
            case (.on, true): "ON"
            case (.off, true): "OFF"
            case (.open, false): "open"
            case (.close, false): "closed"
            default: nil
            }
            guard let value else { return nil }
            states.append((device, value))
        }
        guard let first = subjects.first, case .device(_, let action) = first else { return nil }
        let exists = configuration.modes.contains { mode in
            mode.devices.count + mode.covers.count == states.count && states.allSatisfy { s in
                switch s.value {
                case "ON": mode.devices[s.device.id] == .on
                case "OFF": mode.devices[s.device.id] == .off
                case "open": mode.covers[s.device.id] == 100
                default: mode.covers[s.device.id] == 0
                }
            }
        }
        if exists { return nil }
        let rooms = Set(states.map(\.device.room)).sorted()
        let labels = states.map { configuration.label(for: $0.device) }
        var name = labels.joined(separator: ", ")
        if rooms.count == 1, let room = configuration.room(id: rooms[0]) {
            let prefix = room.name.lowercased() + " "
            let bare = labels.map { $0.lowercased().hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : $0 }
            name = room.name + " " + bare.dropLast().joined(separator: ", ") + " and " + (bare.last ?? "")
        } else {
            name = labels.dropLast().joined(separator: ", ") + " and " + (labels.last ?? "")
        }
        if !subjects.allSatisfy(\.switchesOn) { name += " " + (action == .off ? "off" : "closed") }
        name = name.prefix(1).uppercased() + name.dropFirst()
        var id = HabitSnippet.slug(name)
        var n = 2
        while taken.contains(id) { id = HabitSnippet.slug(name) + "-\(n)"; n += 1 }
        taken.insert(id)
        let notes = subjects.flatMap(confirmNotes(for:))
        let verbs = "\(action == .on ? "turn on" : action == .off ? "turn off" : action.rawValue) the " + labels.joined(separator: " and the ")
        let text = "You \(verbs) together, within \(DurationParser.format(within)) of each other (\(habit.evidence.occurrences) of "
            + "\(habit.evidence.outOf) times): make a mode '\(name)' that switches them at once?" + noteText(notes)
        let yaml = HabitSnippet.mode(id: id, name: name.lowercased(), rooms: rooms, devices: states.map { ($0.device.id, $0.value) })
        return HabitSuggestion(kind: .mode, key: "mode|" + subjects.map(\.key).joined(separator: ","), habit: habit, text: text, yaml: yaml,
                               mode: ModeID(id), confirmNotes: notes)
    }

    // MARK: Words

    /// The intent that does what `subject` did; nil for what the house does not know.
    private func intent(for subject: HabitSubject) -> IntentSpec? {
        switch subject {
        case .device(let id, let action):
            guard let device = configuration.device(id: id), device.kind.supportedActions.contains(action) else { return nil }
            return .control(room: nil, device: id.rawValue, action: action)
        case .mode(let id):
            return configuration.mode(id: id) == nil ? nil : .mode(id, duration: nil, rooms: [])
        case .routine(let id):
            return configuration.routine(id: id) == nil ? nil : .routine(id)
        }
    }

    private func label(_ id: DeviceID) -> String {
        configuration.device(id: id).map { configuration.label(for: $0) } ?? id.rawValue
    }

    /// What a person did, as a phrase: "turn on the kitchen light", "set the mode night".
    func verb(_ subject: HabitSubject) -> String {
        switch subject {
        case .device(let id, let action):
            switch action {
            case .on: "turn on the \(label(id))"
            case .off: "turn off the \(label(id))"
            default: "\(action.rawValue) the \(label(id))"
            }
        case .mode(let id): "set the mode \(id)"
        case .routine(let id): "run '\(configuration.routine(id: id)?.shortcut ?? id.rawValue)'"
        }
    }

    private func subjectName(_ subject: HabitSubject) -> String {
        switch subject {
        case .device(let id, let action): "\(label(id)) \(action.rawValue)"
        case .mode(let id): "\(id) mode"
        case .routine(let id): configuration.routine(id: id)?.shortcut ?? id.rawValue
        }
    }

    private func daysText(_ days: DaySet) -> String {
        switch days {
        case .everyDay: "every day"
        case .weekdaysOnly: "on weekdays"
        case .weekends: "at weekends"
        default: "on " + HabitSnippet.dayNames(days, plural: true)
        }
    }

    /// A duration to the minute: "25m", "1h10m".
    static func minutes(_ d: Duration) -> String {
        DurationParser.format(.seconds(max(1, (d.components.seconds + 30) / 60) * 60))
    }

    private func window(_ routine: Routine) -> String { routine.relevant?.description ?? "always" }

    private func confirmNotes(for subject: HabitSubject) -> [String] {
        switch subject {
        case .device(let id, let action):
            guard configuration.device(id: id)?.confirm == true else { return [] }
            return action == .on || action == .open
                ? ["the \(label(id)) is confirm: true: it is never switched without a yes"]
                : ["the \(label(id)) is confirm: true (switching it \(action.rawValue) needs no yes)"]
        case .mode(let id): return confirmNotes(forMode: id)
        case .routine: return []
        }
    }

    private func confirmNotes(forMode id: ModeID) -> [String] {
        configuration.mode(id: id)?.confirm == true ? ["the mode \(id) is confirm: true: it is never set without a yes"] : []
    }

    private func noteText(_ notes: [String]) -> String {
        notes.isEmpty ? "" : " Note: " + notes.joined(separator: "; ") + "."
    }
}
