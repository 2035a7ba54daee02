/// Maps a template match (hassil intent name and slot values) to a typed `HouseIntent`.
///
/// Intent names and slots understood:
/// - `HouseControl`: `action` (on/off/toggle/open/close/stop), `device`, `room`, `floor`, `plural` ("true"),
///   `whole_house` ("true": "all"/"every" was said), `capability` (brightness, colour,
///   colour-temperature, temperature, position, speed, level: asked for, answered with what can
///   be done), `position` (a number: with capability position or level, a cover's position;
///   with `closed` "true", how far it is closed);
/// - `SetHouseMode`: `mode`, `duration` (seconds), `room`, `room_2` ("the kitchen and the hall"),
///   `floor`, `here` ("true": the speaker's room);
/// - `QueryHouseStatus`: `query` (device-states/mode/energy), `time_range`
///   (today/yesterday/this-week/last-hours), `hours`, `room`, `floor`, `device`, `plural`, `here`;
/// - `RunRoutine`: `routine`.
public enum PhraseIntentBuilder {
    /// The intent names this builder makes typed intents of.
    /// (`HassNevermind` makes none: the run ends without doing anything.)
    public static let intentNames: Set<String> = Set(["HouseControl", "SetHouseMode", "QueryHouseStatus", "RunRoutine"])
        .union(CommunityGrammar.intents.subtracting([CommunityGrammar.nevermind]))

    /// The typed intent, or nil when the name is not a house intent or a slot value is unusable.
    public static func intent(name: String, slots: [String: String]) -> HouseIntent? {
        intent(name: name) { slots[$0] }
    }

    /// The typed intent from a slot lookup (the matcher passes its small slot list).
    static func intent(name: String, slot: (String) -> String?) -> HouseIntent? {
        switch name {
        case "HouseControl":
            var action: HouseAction? = nil
            if let a = slot("action") {
                guard let parsed = HouseAction(rawValue: a) else { return nil }
                action = parsed
            }
            var capability: DeviceCapability? = nil
            if let c = slot("capability") {
                guard let parsed = DeviceCapability(rawValue: c) else { return nil }
                capability = parsed
            }
            var position: Int? = nil
            if let p = slot("position") {
                guard let parsed = Int(p) else { return nil }
                // `closed`: the share said is how far it closes ("zu 70 Prozent schließen" is 30% open).
                position = slot("closed") == "true" && (0...100).contains(parsed) ? 100 - parsed : parsed
            }
            return .control(HouseControlIntent(room: slot("room"), floor: slot("floor"), action: action, device: slot("device"),
                                               plural: slot("plural") == "true", wholeHouse: slot("whole_house") == "true",
                                               capability: capability, position: position))
        case "SetHouseMode":
            var duration: Duration? = nil
            if let d = slot("duration") {
                guard let seconds = Int(d), seconds > 0 else { return nil }
                duration = .seconds(seconds)
            }
            let rooms = [slot("room"), slot("room_2")].compactMap { $0 }
            return .setMode(SetHouseModeIntent(mode: slot("mode"), duration: duration, rooms: rooms.isEmpty ? nil : rooms,
                                               floor: slot("floor"), here: slot("here") == "true"))
        case "QueryHouseStatus":
            var query: QueryType? = nil
            if let q = slot("query") {
                guard let parsed = QueryType(rawValue: q) else { return nil }
                query = parsed
            }
            var range: TimeRange? = nil
            switch slot("time_range") {
            case nil: range = nil
            case "today": range = .today
            case "yesterday": range = .yesterday
            case "this-week": range = .thisWeek
            case "last-hours":
                guard let hours = Int(slot("hours") ?? "1"), hours > 0 else { return nil }
                range = .lastHours(hours)
            default: return nil
            }
            return .query(QueryHouseStatusIntent(queryType: query, timeRange: range, room: slot("room"), floor: slot("floor"), device: slot("device"),
                                                      plural: slot("plural") == "true", here: slot("here") == "true"))
        case "RunRoutine":
            return .runRoutine(RunRoutineIntent(routine: slot("routine")))
        default:
            return grammarIntent(name: name, slot: slot)
        }
    }

    /// A short description of an intent for questions and dry runs.
    public static func describe(_ intent: HouseIntent) -> String {
        switch intent {
        case .control(let c):
            let action = c.action?.rawValue ?? "switch"
            var verb = (c.action == .open || c.action == .close || c.action == .toggle) ? action : "turn \(action)"
            if let capability = c.capability { verb = "ask for the \(capability.rawValue.replacingOccurrences(of: "-", with: " ")) of" }
            var what: String
            if let device = c.device {
                what = c.plural ? "all \(PhraseVocabulary.pluralize(device))" : device
            } else {
                what = "everything"
            }
            if let room = c.room { what += " in \(room)" }
            if let floor = c.floor { what += " on \(floor)" }
            return "\(verb) \(what)"
        case .setMode(let m):
            var text = "set \(m.rooms.map { $0.joined(separator: ", ") } ?? "the house") to \(m.mode ?? "?") mode"
            if let d = m.duration { text += " for \(DurationParser.format(d))" }
            return text
        case .query(let q):
            var text = "ask about \(q.queryType?.rawValue ?? "the house")"
            if let device = q.device { text += " of \(device)" }
            if let room = q.room { text += " in \(room)" }
            if let floor = q.floor { text += " on \(floor)" }
            if let range = q.timeRange { text += " (\(range))" }
            return text
        case .runRoutine(let r):
            return "run routine \"\(r.routine ?? "?")\""
        }
    }
}
