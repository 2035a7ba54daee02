/// The one catalogue of what the house says: every question, refusal and answer text the
/// pipeline produces comes from here, so the CLI, MQTT responses and tests show the same words.
public enum HouseDialog {
    /// "a", "a or b", "a, b or c".
    public static func list(_ items: [String], conjunction: String = "or") -> String {
        switch items.count {
        case 0: return ""
        case 1: return items[0]
        default: return items.dropLast().joined(separator: ", ") + " \(conjunction) " + items.last!
        }
    }

    // MARK: Questions

    public static func whichRoom(device: String, rooms: [String]) -> String {
        "Which \(device): \(list(rooms.map { "the one in the \($0)" }))?"
    }

    /// "The lights in which room: the kitchen or the hall? (Say "all the lights" for the whole house.)"
    public static func whichRoom(plural kind: String, rooms: [String]) -> String {
        "The \(kind) in which room: \(list(rooms.map { "the \($0)" }))? (Say \"all the \(kind)\" for the whole house.)"
    }

    public static func whichRoomForAction() -> String { "Which room?" }

    public static func whichDevice(name: String, options: [String]) -> String {
        "Which \(name): \(list(options.map { "the \($0)" }))?"
    }

    /// `place`: "in the kitchen", "on the first floor", or nil for the house.
    public static func whatDevice(place: String?, options: [String]) -> String {
        let inRoom = place.map { " \($0)" } ?? ""
        return options.isEmpty ? "Which device\(inRoom)?" : "Which device\(inRoom): \(list(options))?"
    }

    public static func whatAction(device: String, actions: [HouseAction]) -> String {
        "What should I do with the \(device): \(list(actions.map(verbPhrase)))?"
    }

    public static func confirm(action: HouseAction, devices: [String]) -> String {
        // A long list is cut: the count says how many, the first few say which.
        guard devices.count > 6 else {
            return "Do you want me to \(verb(action)) the \(list(devices, conjunction: "and"))? Say yes to go ahead."
        }
        let shown = devices.prefix(4).joined(separator: ", ")
        return "Do you want me to \(verb(action)) \(devices.count) devices: the \(shown) and \(devices.count - 4) more? Say yes to go ahead."
    }

    public static func confirmMode(_ mode: ModeID, devices: [String]) -> String {
        let turning = devices.isEmpty ? "" : " It turns on the \(list(devices, conjunction: "and"))."
        return "Do you want me to set \(mode) mode?\(turning) Say yes to go ahead."
    }

    public static func whichMode(modes: [ModeID]) -> String { "Which mode: \(list(modes.map(\.rawValue)))?" }

    public static func whichRoutine(routines: [String]) -> String { "Which routine: \(list(routines.map { "\"\($0)\"" }))?" }

    public static func whatQuery() -> String { "What would you like to know: which devices are on, the mode, or the energy used?" }

    // MARK: Refusals

    public static func unknownRoom(_ name: String, rooms: [String]) -> String {
        "There's no room called \"\(name)\". The rooms are: \(list(rooms, conjunction: "and"))."
    }

    /// "In here" said, and nothing says where the speaker is.
    public static func whichRoomAreYouIn() -> String { "Which room are you in?" }

    public static func unknownFloor(_ name: String, floors: [String]) -> String {
        floors.isEmpty ? "This house has no floors set up (floors: in house.yaml), so I can't tell what \"\(name)\" means."
            : "There's no floor called \"\(name)\". The floors are: \(list(floors, conjunction: "and"))."
    }

    /// `place`: "in the kitchen", "on the first floor", or nil for the house.
    public static func unknownDevice(_ name: String, place: String?, known: [String]) -> String {
        let place = place ?? "in the house"
        let has = known.isEmpty ? "" : " I know \(list(known, conjunction: "and"))."
        return "There's no \"\(name)\" \(place).\(has)"
    }

    public static func unsupportedAction(_ action: HouseAction, device: String, kind: DeviceKind) -> String {
        if kind == .sensor { return "The \(device) is a sensor: I can tell you its value (\"what's the \(device)\"), but not \(verb(action)) it." }
        if kind.isInput {
            let what = kind == .button ? "a button: it is pressed, not switched" : "a \(kind == .contact ? "contact" : "motion sensor"): I can tell you whether it is \(kind == .contact ? "open" : "seeing motion") (\"is the \(device) \(kind == .contact ? "open" : "on")\"), not \(verb(action)) it"
            return "The \(device) is \(what)."
        }
        if kind == .cover {
            return "The \(device) is a cover; I can open, close or stop it, or set it to a position (\"set the \(device) to 40%\"), but not \(verb(action)) it."
        }
        let can = HouseAction.allCases.filter(kind.supportedActions.contains).map(verb)
        return "The \(device) is a \(kind.rawValue); I can \(list(can)) it, but not \(verb(action)) it."
    }

    /// "The kitchen ceiling light is switched by a relay: it can only be turned on or off, not
    /// dimmed or brightened."
    public static func cannot(_ capability: DeviceCapability, devices: [String], kinds: Set<DeviceKind>) -> String {
        let one = devices.count == 1
        if kinds == [.cover] {
            return "The \(list(devices, conjunction: "and")) can be opened, closed, stopped or set to a position (\"set \(one ? "it" : "them") to 40%\"), not \(capability == .position || capability == .level ? "moved by an amount or tilted" : capability.refusal(for: kinds))."
        }
        let opens = kinds.allSatisfy { $0.supportedActions.contains(.open) } && !kinds.allSatisfy { $0.supportedActions.contains(.on) }
        let can = opens ? "opened or closed" : "turned on or off"
        // Many devices of one kind: "The lights are ...".
        let subject = devices.count > 3 && kinds.count == 1 ? PhraseVocabulary.pluralize(kinds.first!.rawValue) : list(devices, conjunction: "and")
        return "The \(subject) \(one ? "is" : "are") switched by \(one ? "a relay" : "relays"): "
            + "\(one ? "it" : "they") can only be \(can), not \(capability.refusal(for: kinds))."
    }

    public static func unknownMode(_ name: String, modes: [ModeID]) -> String {
        "There's no \"\(name)\" mode. The modes are: \(list(modes.map(\.rawValue), conjunction: "and"))."
    }

    public static func modeTooLong(_ d: Duration) -> String {
        "A mode can last at most \(IntentResolver.maximumModeDuration.components.seconds / 86_400) days; \(DurationParser.format(d)) is too long."
    }

    public static func modeNotPositive() -> String { "A mode has to last a positive time." }

    public static func modeChangesNothing(mode: ModeID, rooms: [String]) -> String {
        "The \(mode) mode doesn't change anything in the \(list(rooms, conjunction: "and"))."
    }

    public static func unknownRoutine(_ name: String, routines: [String]) -> String {
        "There's no routine \"\(name)\". The routines are: \(list(routines.map { "\"\($0)\"" }, conjunction: "and"))."
    }

    public static func badTimeRange() -> String { "I can only look back between 1 hour and 31 days." }

    public static func notAllowed(device: String, source: IntentSource) -> String {
        "Requests from \(sourceName(source)) may not switch the \(device). Ask at the house's command line."
    }

    /// A reading as people say it: whole numbers without a fraction, others to two places.
    public static func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String((v * 100).rounded() / 100)
    }

    /// " °C", or "%" right after the number, or nothing.
    public static func unitSuffix(_ unit: String?) -> String {
        unit.map { $0 == "%" ? $0 : " " + $0 } ?? ""
    }

    /// A sensor's reading: "The bedroom temperature is 19.5 °C.", or why there is none.
    public static func sensorReading(_ label: String, _ reading: SensorReading?, unit: String?) -> String {
        switch reading {
        case .value(let v, _):
            return "The \(label) is \(number(v))\(unitSuffix(unit))."
        case .unavailable(let reason):
            return "The \(label) is not available: \(reason)."
        case nil:
            return "The \(label) has not reported a value yet."
        }
    }

    public static func confirmNotAllowed(device: String, source: IntentSource) -> String {
        "The \(device) needs a person to confirm, and requests from \(sourceName(source)) cannot. Ask at the house's command line."
    }

    public static func modeNotAllowed(mode: ModeID, source: IntentSource) -> String {
        "Requests from \(sourceName(source)) may not set the \(mode) mode."
    }

    public static func busy(device: String) -> String { "The \(device) is still moving; try again in a moment." }

    public static func notConfirmed(devices: [String]) -> String {
        "I didn't touch the \(list(devices, conjunction: "and")): that needs a yes first."
    }

    // MARK: Answers

    public static func switched(_ devices: [String], to state: DeviceState) -> String {
        let verb = devices.count == 1 ? "is" : "are"
        return "OK, the \(list(devices, conjunction: "and")) \(verb) \(state == .on ? "on" : "off")."
    }

    /// A cover set moving: "OK, the living room shutter is opening." / "... is moving to 40%."
    public static func coverMoving(_ cover: String, toward target: Int) -> String {
        switch target {
        case 100: "OK, the \(cover) is opening."
        case 0: "OK, the \(cover) is closing."
        default: "OK, the \(cover) is moving to \(target)%."
        }
    }

    /// "OK, the living room shutter stopped at 35%."
    public static func coverStopped(_ cover: String, at percent: Int) -> String {
        "OK, the \(cover) stopped at \(percent)%."
    }

    /// A cover asked to go where it is: "The living room shutter is already open."
    public static func coverAlready(_ cover: String, at percent: Int) -> String {
        switch percent {
        case 100: "The \(cover) is already open."
        case 0: "The \(cover) is already closed."
        default: "The \(cover) is already at \(percent)%."
        }
    }

    /// A cover asked about: "The living room shutter is open.", "... is 40% open.", "... is
    /// closing (now at 60%).", with a word when the position is only assumed (after a restart,
    /// until it next opens or closes fully).
    public static func coverState(_ cover: String, _ state: CoverState, percent: Int, assumed: Bool) -> String {
        let where_: String
        switch state {
        case .open: where_ = "is open"
        case .closed: where_ = "is closed"
        case .stopped: where_ = "is \(percent)% open"
        case .opening: where_ = "is opening (now at \(percent)%)"
        case .closing: where_ = "is closing (now at \(percent)%)"
        case .unknown, .obstructed: where_ = "is \(state.rawValue)"
        }
        let doubt = assumed ? ", as far as I know: it has no position sensor, and it has not opened or closed fully since I started" : ""
        return "The \(cover) \(where_)\(doubt)."
    }

    /// What an opener cannot do: "The garage door is worked by a push button: I can open, close
    /// or stop it, not turn it on."
    public static func openerCannot(_ action: HouseAction, device: String) -> String {
        "The \(device) is worked by a push button: I can open, close or stop it, not \(action == .position ? "set it to a position" : verbPhrase(action))."
    }

    /// Stop asked of an opener without contacts: nothing says whether it moves.
    public static func openerCannotStop(device: String) -> String {
        "The \(device) has no contacts, so I cannot tell whether it is moving, and a press could start it: stop it at its own button."
    }

    /// An opener's place as its contacts (and the last press) say.
    public static func openerState(_ cover: String, _ state: CoverState) -> String {
        switch state {
        case .open: "The \(cover) is open."
        case .closed: "The \(cover) is closed."
        case .opening: "The \(cover) is opening."
        case .closing: "The \(cover) is closing."
        case .stopped: "The \(cover) is neither open nor closed: it stopped part way."
        case .obstructed: "The \(cover) did not reach its end in time after the last press: it may be obstructed. Have a look before you press again."
        case .unknown: "I can't tell whether the \(cover) is open: it has no contact to say."
        }
    }

    /// What pressing an opener's button did (or why it was not pressed).
    public static func openerAnswer(_ cover: String, pressed: Bool, state: CoverState, toward: CoverDirection?) -> String {
        guard pressed else {
            switch state {
            case .open: return "The \(cover) is already open."
            case .closed: return "The \(cover) is already closed."
            case .opening: return "The \(cover) is already opening."
            case .closing: return "The \(cover) is already closing."
            default: return "The \(cover) is not moving."
            }
        }
        switch (state, toward) {
        case (.opening, .down?), (.closing, .up?):
            return "The \(cover) was \(state.rawValue): I pressed its button, which stops it (or turns it round, as this opener does). Ask again once it has stopped."
        case (.opening, nil), (.closing, nil):
            return "OK, I pressed the \(cover)'s button to stop it."
        case (_, .up?): return "OK, the \(cover) is opening."
        case (_, .down?): return "OK, the \(cover) is closing."
        case (_, nil): return "OK, I pressed the \(cover)'s button."
        }
    }

    /// A position outside 0-100, or none given.
    public static func positionOutOfRange(_ position: Int?) -> String {
        guard let position else { return "To what position? Say a percentage from 0 (closed) to 100 (open)." }
        return "A position is 0 (closed) to 100 (open) percent; \(position) is outside that."
    }

    public static func pulsed(_ device: String, action: HouseAction) -> String {
        "OK, I've pressed the \(device) button\(action == .toggle ? "" : " to \(action.rawValue) it")."
    }

    public static func modeSet(_ mode: ModeID, rooms: [String], duration: Duration?) -> String {
        let place = rooms.isEmpty ? "The house" : "The \(list(rooms, conjunction: "and"))"
        let verb = rooms.count > 1 ? "are" : "is"
        let until = duration.map { " for \(DurationParser.format($0))" } ?? ""
        return "OK. \(place) \(verb) in \(mode) mode\(until)."
    }

    public static func modeIs(_ mode: ModeID?) -> String {
        mode.map { "The house is in \($0) mode." } ?? "The house is not in any mode."
    }

    /// The answer to "what's on": `asked` is what was asked about ("lights"), `place` where
    /// ("in the kitchen", "on the first floor").
    public static func devicesOn(_ devices: [String], asked: String? = nil, place: String? = nil) -> String {
        let at = place.map { " \($0)" } ?? ""
        if devices.isEmpty { return asked.map { "No \($0) are on\(at)." } ?? (place == nil ? "Everything is off." : "Nothing is on\(at).") }
        let count = devices.count > 1 ? " (\(devices.count))" : ""
        return "On\(at)\(count): \(list(devices.map { "the \($0)" }, conjunction: "and"))."
    }

    /// The power drawn now by the devices that are on (those without `watts` are named apart).
    public static func power(_ drawing: [(label: String, watts: Double?)], place: String? = nil) -> String {
        let at = place.map { " \($0)" } ?? ""
        guard !drawing.isEmpty else { return "Nothing is on\(at), so nothing is drawing power." }
        let known = drawing.compactMap { d in d.watts.map { (d.label, $0) } }.sorted { $0.1 > $1.1 }
        let total = known.reduce(0) { $0 + $1.1 }
        var text = "About \(formatWatts(total)) right now\(at)"
        text += known.isEmpty ? "." : ": " + list(known.map { "the \($0.0) \(formatWatts($0.1))" }, conjunction: "and") + "."
        let unknown = drawing.filter { $0.watts == nil }.map { "the \($0.label)" }
        if !unknown.isEmpty { text += " Also on, with no watts configured: \(list(unknown, conjunction: "and"))." }
        return text
    }

    static func formatWatts(_ w: Double) -> String {
        w >= 1000 ? String(format: "%.1f kW", w / 1000) : "\(Int(w.rounded())) W"
    }

    /// The state of one device asked about by name. A door switched by a pulse relay has no
    /// position sensor, so its answer says what housectl can know.
    /// A device that lives elsewhere and has not reported its state since the start.
    public static func stateUnknown(_ label: String) -> String {
        "I don't know whether the \(label) is on: it has not reported its state since I started."
    }

    public static func deviceState(_ label: String, _ state: DeviceState, kind: DeviceKind, pulsed: Bool) -> String {
        if kind == .door && pulsed {
            return "I can't tell whether the \(label) is open: it is worked by a push-button relay, which is \(state == .on ? "pressed" : "released"), and has no position sensor."
        }
        let name = label.prefix(1).uppercased() + label.dropFirst()
        switch kind {
        case .contact: return "The \(label) is \(state == .on ? "open" : "closed")."
        case .motion: return "The \(label) \(state == .on ? "sees motion" : "sees no motion")."
        case .button: return "The \(label) is a button: it has no state, only presses (single, double, long)."
        default: return "\(name) is \(state == .on ? "on" : "off")."
        }
    }

    /// The contacts that are open: "Open: the back door and the kitchen window." / "Everything
    /// is closed." (`asked`: "windows" when the question named them).
    public static func contactsOpen(_ open: [String], asked: String? = nil, place: String? = nil) -> String {
        let at = place.map { " \($0)" } ?? ""
        if open.isEmpty { return asked.map { "No \($0) are open\(at)." } ?? "Everything is closed\(at)." }
        let count = open.count > 1 ? " (\(open.count))" : ""
        return "Open\(at)\(count): \(list(open.map { "the \($0)" }, conjunction: "and"))."
    }

    public static func energy(kWh: Double, range: TimeRange) -> String {
        energy(kWh: kWh, range: range, who: nil, place: nil)
    }

    /// `who`: "the kitchen light", "they" (several devices asked about), nil for the house.
    public static func energy(kWh: Double, range: TimeRange, who: String?, place: String?) -> String {
        let subject = who.map { $0.prefix(1).uppercased() + $0.dropFirst() } ?? (place.map { "Everything \($0)" } ?? "The house")
        return "\(subject) used \(formatKWh(kWh)) kWh \(rangeName(range))."
    }

    public static func failed(_ reason: String) -> String { "Sorry, that didn't work: \(reason)" }

    /// A switch the relay's safety rules carry out later: "The office fan will switch ON in 4.2s:
    /// minimum interval of 5s between switchings."
    public static func deferred(_ label: String, _ note: String) -> String { "The \(label) \(note)." }

    /// A relay of another node whose controller has not reported its status (never started, or
    /// a broker without its retained status): the command was sent, nothing confirms a taker.
    public static func unreportedNode(_ label: String, node: NodeID) -> String {
        "The \(label) is on node \(node), which has not reported its status: the command was sent, but housectl serve may not be running there."
    }

    // MARK: Words

    public static func verb(_ a: HouseAction) -> String {
        switch a {
        case .on: "turn on"
        case .off: "turn off"
        case .toggle: "toggle"
        case .open: "open"
        case .close: "close"
        case .stop: "stop"
        case .position: "set the position of"
        }
    }

    static func verbPhrase(_ a: HouseAction) -> String {
        switch a {
        case .on: "turn it on"
        case .off: "turn it off"
        case .toggle: "toggle it"
        case .open: "open it"
        case .close: "close it"
        case .stop: "stop it"
        case .position: "set its position"
        }
    }

    public static func sourceName(_ s: IntentSource) -> String {
        switch s {
        case .cli: "the command line"
        case .mqtt: "MQTT"
        case .routine: "routines"
        case .rule: "automation rules"
        case .web: "the web page"
        case .homekit: "Apple Home"
        }
    }

    public static func rangeName(_ r: TimeRange) -> String {
        switch r {
        case .today: "today"
        case .yesterday: "yesterday"
        case .thisWeek: "this week"
        case .lastHours(let n): n == 1 ? "in the last hour" : "in the last \(n) hours"
        }
    }

    public static func formatKWh(_ v: Double) -> String {
        let rounded = (v * 1000).rounded() / 1000
        var s = String(rounded)
        if s.hasSuffix(".0") { s.removeLast(2) }
        return s
    }
}
