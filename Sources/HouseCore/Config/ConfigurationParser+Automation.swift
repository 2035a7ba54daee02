import MQTTTopics
import Yams

/// Modes, routines, rules and the intents they run.
extension ConfigurationParser {
    func parseMode(_ node: YNode) -> Mode? {
        guard let m = ctx.map(node, what: "mode", allowed: ["id", "names", "devices", "rooms", "confirm"]) else { return nil }
        guard let id = m.string("id", expected: "the mode's id, e.g. night", required: true) else { return nil }
        var names = m["names"].flatMap { ctx.strings($0, expected: "names people use for the mode") } ?? []
        if !names.contains(where: { $0.lowercased() == id.lowercased() }) { names.insert(id, at: 0) }
        var states: [DeviceID: DeviceState] = [:]
        var covers: [DeviceID: Int] = [:]
        if let d = m.require("devices", expected: "a mapping of device id to ON or OFF (a cover: open, closed or a position 0-100)"),
           let dm = ctx.map(d, what: "devices of mode '\(id)'", allowed: nil) {
            for (key, value) in dm.mapping {
                guard let deviceID = reference(key, to: deviceIDs, what: "device") else { continue }
                if sensorIDs.contains(deviceID) || inputIDs.contains(deviceID) {
                    ctx.error("device '\(deviceID)' in mode '\(id)' is \(inputIDs.contains(deviceID) ? "an input" : "a sensor"): a mode can only switch devices", at: key)
                    continue
                }
                if coverIDs.contains(deviceID) {
                    if let position = coverPosition(value, cover: deviceID) { covers[deviceID] = position }
                    continue
                }
                guard let s = ctx.oneOf(value, ["on", "off"], what: "a device state (ON or OFF)") else { continue }
                states[deviceID] = s == "on" ? .on : .off
            }
        }
        var rooms: [RoomID] = []
        if let r = m["rooms"], let items = ctx.sequence(r, expected: "room ids") {
            rooms = items.compactMap(roomReference)
        }
        let confirm = m["confirm"].flatMap { ctx.bool($0) } ?? false
        return Mode(id: ModeID(id), names: names, devices: states, covers: covers, rooms: rooms, confirm: confirm)
    }

    /// A cover's place in a mode: `open` (100), `closed` (0) or a position 0-100 (`40`, `40%`).
    private func coverPosition(_ node: YNode, cover: DeviceID) -> Int? {
        let expected = "a position for cover '\(cover)': open, closed, or 0 (closed) to 100 (open)"
        guard let text = ctx.string(node, expected: expected)?.lowercased() else { return nil }
        switch text {
        case "open": return 100
        case "closed", "close": return 0
        default:
            let digits = text.hasSuffix("%") ? String(text.dropLast()) : text
            guard let n = Int(digits.filter { $0 != " " }), (0...100).contains(n) else {
                ctx.error("expected \(expected), found '\(text)'", at: node)
                return nil
            }
            return n
        }
    }

    func parseRoutine(_ node: YNode) -> Routine? {
        let keys = ["id", "shortcut", "relevant", "run_at", "jitter", "catch_up", "daylight_saving", "intent", "confirmed"]
        guard let m = ctx.map(node, what: "routine", allowed: keys) else { return nil }
        let id = m.string("id", expected: "the routine's id, e.g. good-morning", required: true)
        let what = "routine '\(id ?? "?")'"
        let shortcut = m.string("shortcut", expected: "the shortcut phrase, e.g. \"Good morning house\"", required: true)
        var relevant: TimeWindowSpec?
        if let r = m["relevant"], let rm = ctx.map(r, what: "relevant of \(what)", allowed: ["from", "to", "days"]) {
            let from = rm.require("from", expected: "a time HH:MM or a sun event").flatMap(ctx.timeEdge)
            let to = rm.require("to", expected: "a time HH:MM or a sun event").flatMap(ctx.timeEdge)
            let days = rm["days"].flatMap(ctx.days) ?? .everyDay
            if let from, let to {
                if from == to { ctx.error("the relevance window of \(what) starts and ends at \(from); expected two different edges", at: rm["to"]) }
                relevant = TimeWindowSpec(from: from, to: to, days: days)
            }
        }
        let runAt = m["run_at"].flatMap(ctx.timeEdge)
        let jitter = m["jitter"].flatMap(ctx.duration)
        let catchUp = m["catch_up"].flatMap { ctx.oneOf($0, CatchUpPolicy.allCases.map(\.rawValue), what: "catch_up") }
            .flatMap(CatchUpPolicy.init(rawValue:)) ?? .none
        let dst = m["daylight_saving"].flatMap { ctx.oneOf($0, DaylightSavingPolicy.allCases.map(\.rawValue), what: "daylight_saving") }
            .flatMap(DaylightSavingPolicy.init(rawValue:)) ?? .runAfterGap
        let intent = m.require("intent", expected: "an intent: {mode: ...}, {device: ..., action: ...} or {routine: ...}")
            .flatMap { parseIntent($0, owner: what) }
        if case .routine(let target)? = intent, target.rawValue == id {
            ctx.error("\(what) runs itself", at: m["intent"])
        }
        let confirmed = m["confirmed"].flatMap { ctx.bool($0) } ?? false
        guard let id, let shortcut, let intent else { return nil }
        return Routine(id: RoutineID(id), shortcut: shortcut, relevant: relevant, runAt: runAt, jitter: jitter,
                       catchUp: catchUp, daylightSaving: dst, intent: intent, confirmed: confirmed)
    }

    func parseRule(_ node: YNode, number: Int) -> Rule? {
        guard let m = ctx.map(node, what: "rule", allowed: ["id", "when", "intent"]) else { return nil }
        let id = m.string("id", expected: "the rule's id") ?? "rule-\(number)"
        let what = "rule '\(id)'"
        var trigger: RuleTrigger?
        if let w = m.require("when", expected: "a trigger: {topic, payload}, {device, state}, {button, press} or {mode}"),
           let wm = ctx.map(w, what: "when of \(what)", allowed: ["topic", "payload", "json_field", "json_value", "device", "state", "mode",
                                                                 "button", "press", "above", "below"]) {
            if let b = wm["button"] {
                let press = wm["press"].flatMap { ctx.oneOf($0, ButtonPress.allCases.map(\.rawValue), what: "a press") }.flatMap(ButtonPress.init(rawValue:))
                if let button = reference(b, to: deviceIDs, what: "button") {
                    if let device = devices.first(where: { $0.id == button }), device.kind != .button {
                        ctx.error("'\(button)' in \(what) is a \(device.kind.rawValue), not a button; a contact or motion sensor is a device: {device: ID, state: ON}", at: b)
                    } else {
                        trigger = .button(device: button, press: press)
                    }
                }
            } else if let t = wm["topic"] {
                if let topic = ctx.string(t, expected: "an MQTT topic filter") {
                    if let problem = MQTTTopic.filterProblem(topic) {
                        ctx.error("expected an MQTT topic filter, found '\(topic)': \(problem)", at: t)
                    }
                    trigger = .mqtt(topic: topic, payload: wm.string("payload", expected: "a payload"),
                                    jsonField: wm.string("json_field", expected: "a JSON field name"),
                                    jsonValue: wm.string("json_value", expected: "a JSON field value"))
                }
            } else if let d = wm["device"], wm.has("above") || wm.has("below") {
                // A sensor's value crossing a threshold.
                let above = wm["above"].flatMap { ctx.double($0, expected: "a number the value must rise above") }
                let below = wm["below"].flatMap { ctx.double($0, expected: "a number the value must fall below") }
                if wm.has("state") { ctx.error("state in the when of \(what) is for devices that switch; a sensor's rule takes above and/or below", at: wm.keyNode("state")) }
                if let above, let below, above >= below {
                    ctx.error("above (\(above)) must be less than below (\(below)) in \(what): the value is between them", at: wm["below"])
                }
                if let device = reference(d, to: deviceIDs, what: "device") {
                    if !sensorIDs.contains(device) {
                        ctx.error("above and below in \(what) are for sensors (kind: sensor); '\(device)' is not one", at: d)
                    } else if above != nil || below != nil {
                        trigger = .sensor(device: device, above: above, below: below)
                    }
                }
            } else if let d = wm["device"] {
                let state = wm["state"].flatMap { ctx.oneOf($0, ["on", "off"], what: "a device state (ON or OFF)") }
                if let device = reference(d, to: deviceIDs, what: "device") {
                    trigger = .deviceState(device: device, state: state.map { $0 == "on" ? .on : .off })
                }
            } else if let mo = wm["mode"] {
                trigger = reference(mo, to: modeIDs, what: "mode").map(RuleTrigger.mode)
            } else {
                ctx.error("expected a trigger in \(what): topic (with payload or json_field/json_value), device (with state), button (with press) or mode", at: w)
            }
        }
        let intent = m.require("intent", expected: "an intent: {mode: ...}, {device: ..., action: ...} or {routine: ...}")
            .flatMap { parseIntent($0, owner: what) }
        guard let trigger, let intent else { return nil }
        return Rule(id: id, trigger: trigger, intent: intent)
    }

    /// `{mode, duration?, rooms?}`, `{device and/or room, action}` or `{routine}`.
    func parseIntent(_ node: YNode, owner: String) -> IntentSpec? {
        let keys = ["mode", "duration", "rooms", "device", "room", "action", "routine"]
        guard let m = ctx.map(node, what: "intent of \(owner)", allowed: keys) else { return nil }
        let kinds = ["mode", "device", "routine"].filter(m.has)
        if kinds.count > 1 {
            ctx.error("the intent of \(owner) has \(kinds.joined(separator: " and ")); expected exactly one of mode, device or routine", at: node)
            return nil
        }
        if let mo = m["mode"] {
            let mode = reference(mo, to: modeIDs, what: "mode")
            let duration = m["duration"].flatMap(ctx.duration)
            if let d = duration, d > IntentResolver.maximumModeDuration {
                ctx.error("expected a mode duration of at most \(DurationParser.format(IntentResolver.maximumModeDuration)), found \(DurationParser.format(d))", at: m["duration"])
            }
            let rooms = m["rooms"].flatMap { ctx.sequence($0, expected: "room ids") }?.compactMap(roomReference) ?? []
            return mode.map { .mode($0, duration: duration, rooms: rooms) }
        }
        if let r = m["routine"] {
            return reference(r, to: routineIDs, what: "routine").map(IntentSpec.routine)
        }
        if m.has("device") || m.has("room") {
            let room = m["room"].flatMap(roomReference)
            var device: String?
            if let d = m["device"], let s = ctx.string(d, expected: "a device id or name") {
                if deviceIDs.contains(DeviceID(s)) || deviceNames.contains(s.lowercased()) || deviceNames.contains(String(s.lowercased().dropLast())) {
                    device = s
                } else {
                    let hint = Suggestion.hint(for: s, in: deviceIDs.map(\.rawValue) + deviceNames.sorted())
                    ctx.error("unknown device '\(s)'\(hint.isEmpty ? "; expected a device id or a name a device has" : hint)", at: d)
                }
            }
            let actions = HouseAction.allCases.map(\.rawValue)
            let action = m.require("action", expected: "one of \(actions.joined(separator: ", "))")
                .flatMap { ctx.oneOf($0, actions, what: "an action") }.flatMap(HouseAction.init(rawValue:))
            guard let action, (device != nil || !m.has("device")), (room != nil || !m.has("room")) else { return nil }
            return .control(room: room, device: device, action: action)
        }
        ctx.error("expected an intent in \(owner): {mode: ...}, {device: ..., action: ...} or {routine: ...}", at: node)
        return nil
    }

    /// A routine runs with nobody to answer "are you sure?": one whose intent asks it (a
    /// `confirm: true` device switched on, a `confirm: true` mode, or a routine it runs that does)
    /// must say `confirmed: true`, else it would stall every time it runs.
    func checkRoutineConfirmations(_ configuration: HouseConfiguration, nodes: YNode?) {
        guard case .sequence(let items)? = nodes else { return }
        let resolver = IntentResolver(configuration: configuration)
        func question(_ spec: IntentSpec, visited: Set<RoutineID>) -> String? {
            if case .routine(let id) = spec {
                guard !visited.contains(id), let inner = configuration.routines.first(where: { $0.id == id }) else { return nil }
                return question(inner.intent, visited: visited.union([id]))
            }
            return resolver.resolve(spec.intent, answers: .none).pendingConfirmation.map { $0.question ?? "a confirmation" }
        }
        for item in items {
            guard let m = item.mapping, let id = m["id"]?.scalar?.string,
                  let routine = configuration.routine(id: RoutineID(id)), !routine.confirmed,
                  let asked = question(routine.intent, visited: [routine.id]) else { continue }
            ctx.error("routine '\(id)' would ask \"\(asked)\" each time it runs, and a routine has nobody to answer; "
                      + "expected `confirmed: true` on the routine (to confirm it in advance) or an intent that needs no confirmation",
                      at: m["intent"])
        }
    }
}
