import Foundation

/// The house.yaml snippets of suggestions, in the syntax of config/house.yaml, and the names
/// they give what they make.
enum HabitSnippet {
    /// What fires a suggested rule.
    enum Trigger {
        case device(DeviceID, DeviceState)
        case mode(ModeID)
    }

    static func routine(id: String, shortcut: String, from: TimeOfDay, to: TimeOfDay, days: DaySet, runAt: TimeOfDay,
                        intent: IntentSpec, confirmed: Bool) -> String {
        var window = "from: \"\(from)\", to: \"\(to)\""
        if days != .everyDay { window += ", days: \(self.days(days))" }
        var lines = ["routines:", "  - id: \(id)", "    shortcut: \(scalar(shortcut))", "    relevant: {\(window)}",
                     "    run_at: \"\(runAt)\"", "    intent: \(self.intent(intent))"]
        if confirmed { lines.append("    confirmed: true") }
        return lines.joined(separator: "\n") + "\n"
    }

    static func modeAddition(mode: ModeID, device: DeviceID, state: DeviceState, routine: Routine) -> String {
        """
        # '\(routine.shortcut)' (\(routine.id)) sets the mode \(mode): add \(device) to its devices
        modes:
          - id: \(mode)
            devices: {\(device): \(state.rawValue)}

        """
    }

    static func runAt(routine: RoutineID, at time: TimeOfDay) -> String {
        """
        # give the routine \(routine) a run time
        routines:
          - id: \(routine)
            run_at: "\(time)"

        """
    }

    static func mode(id: String, name: String, rooms: [RoomID], devices: [(DeviceID, String)]) -> String {
        let states = devices.map { "\($0.0): \($0.1)" }.joined(separator: ", ")
        return ["modes:", "  - id: \(id)", "    names: [\(scalar(name))]", "    rooms: [\(rooms.map(\.rawValue).joined(separator: ", "))]",
                "    devices: {\(states)}"].joined(separator: "\n") + "\n"
    }

    static func maxOn(device: DeviceID, upTo: Duration) -> String {
        """
        # add max_on to the device \(device)
        devices:
          - id: \(device)
            max_on: \(DurationParser.format(upTo))

        """
    }

    static func rule(id: String, when: Trigger, intent: IntentSpec) -> String {
        let trigger = switch when {
        case .device(let d, let state): "{device: \(d), state: \"\(state.rawValue)\"}"
        case .mode(let m): "{mode: \(m)}"
        }
        return ["rules:", "  - id: \(id)", "    when: \(trigger)", "    intent: \(self.intent(intent))"].joined(separator: "\n") + "\n"
    }

    static func intent(_ intent: IntentSpec) -> String {
        switch intent {
        case .control(_, let device, let action): "{device: \(device ?? ""), action: \"\(action.rawValue)\"}"
        case .mode(let id, _, _): "{mode: \(id)}"
        case .routine(let id): "{routine: \(id)}"
        }
    }

    /// `weekdays`, `weekends`, or a list of day names (`[monday, thursday]`).
    static func days(_ days: DaySet) -> String {
        switch days {
        case .weekdaysOnly: "weekdays"
        case .weekends: "weekends"
        default: "[" + mondayFirst(days).map { DaySet.names[$0 - 1] }.joined(separator: ", ") + "]"
        }
    }

    /// "Monday and Thursday", "Mondays, Wednesdays and Fridays" with `plural`.
    static func dayNames(_ days: DaySet, plural: Bool) -> String {
        let names = mondayFirst(days).map { DaySet.names[$0 - 1].capitalized + (plural ? "s" : "") }
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
    }

    private static func mondayFirst(_ days: DaySet) -> [Int] { [2, 3, 4, 5, 6, 7, 1].filter { days.contains(weekday: $0) } }

    /// A shortcut phrase: "Hall light on weekday mornings", "Movie mode every evening".
    static func shortcut(subject: String, days: DaySet, median: TimeOfDay) -> String {
        let part = switch median.hour {
        case 4..<12: "morning"
        case 12..<17: "afternoon"
        case 17..<22: "evening"
        default: "night"
        }
        let when = switch days {
        case .everyDay: "every \(part)"
        case .weekdaysOnly: "weekday \(part)s"
        case .weekends: "weekend \(part)s"
        default: dayNames(days, plural: false) + " \(part)s"
        }
        let text = "\(subject) \(when)"
        return text.prefix(1).uppercased() + text.dropFirst()
    }

    /// An id from a name: lower case, letters and digits, `-` between words.
    static func slug(_ name: String) -> String {
        var out = ""
        for c in name.lowercased() {
            if c.isASCII && (c.isLetter || c.isNumber) {
                out.append(c)
            } else if !out.isEmpty && out.last != "-" {
                out.append("-")
            }
        }
        return out.hasSuffix("-") ? String(out.dropLast()) : out
    }

    /// A YAML scalar: plain when it is only words, else double-quoted.
    static func scalar(_ text: String) -> String {
        let plain = text.first?.isLetter == true && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" }
            && !["yes", "no", "on", "off", "true", "false", "null"].contains(text.lowercased())
        if plain { return text }
        return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
