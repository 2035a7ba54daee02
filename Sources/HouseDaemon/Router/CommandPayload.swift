import Foundation
import HouseCore

/// Parses the payloads of the topic API. Pure and total: any byte string gives a value or a
/// `DaemonError.malformedPayload` that says what was expected; never a crash. Every payload is
/// held to `InputLimits` (size, JSON nesting, the lengths of ids, reply topics and texts) before
/// it is parsed.
public enum CommandPayloadParser {
    public static func deviceCommand(_ payload: [UInt8], topic: String) throws(DaemonError) -> DeviceSetCommand {
        let text = try decodeText(payload, topic: topic)
        let trimmed = text.trimmedWhitespace
        if trimmed.hasPrefix("{") {
            let object = try jsonObject(trimmed, topic: topic)
            let action: HouseAction
            var position: Int? = nil
            if let raw = object["position"] {
                position = try self.position(raw, topic: topic)
                action = .position
            } else {
                guard let state = object["state"] else {
                    throw .malformedPayload(topic: topic, reason: "JSON command needs a \"state\" field (\(actionWords)) or a cover's \"position\" (0-100)")
                }
                guard let stateText = state.string, let a = self.action(stateText) else {
                    throw .malformedPayload(topic: topic, reason: "\"state\" must be \(actionWords)")
                }
                action = a
            }
            return DeviceSetCommand(
                action: action, position: position,
                id: try boundedID(object, "id", topic: topic),
                replyTo: try replyTopic(object, topic: topic),
                confirmed: try flag(object, "confirm", topic: topic)
            )
        }
        if let action = action(trimmed) {
            return DeviceSetCommand(action: action)
        }
        guard let number = Double(trimmed) else {
            throw .malformedPayload(
                topic: topic, reason: "expected \(actionWords), a cover's position 0-100, or JSON {\"state\":\"ON\"}, got \(quoted(trimmed))")
        }
        return DeviceSetCommand(action: .position, position: try position(.number(number), topic: topic))
    }

    /// A cover's position command on its `position/set` topic (Home Assistant's set position):
    /// a number from 0 (closed) to 100 (open), or the JSON of a `set` command.
    public static func positionCommand(_ payload: [UInt8], topic: String) throws(DaemonError) -> DeviceSetCommand {
        let command = try deviceCommand(payload, topic: topic)
        guard command.action == .position else {
            throw .malformedPayload(topic: topic, reason: "expected a position from 0 (closed) to 100 (open)")
        }
        return command
    }

    /// The words a `set` topic takes.
    static let actionWords = "ON, OFF, TOGGLE, OPEN, CLOSE or STOP"

    /// A whole number from 0 to 100.
    private static func position(_ raw: JSONValue, topic: String) throws(DaemonError) -> Int {
        guard case .number(let n) = raw, n.isFinite, n.rounded() == n, (0...100).contains(n) else {
            throw .malformedPayload(topic: topic, reason: "a position must be a whole number from 0 (closed) to 100 (open), got \(quoted(raw.scalarText ?? "a non-number"))")
        }
        return Int(n)
    }

    public static func modeCommand(_ payload: [UInt8], topic: String) throws(DaemonError) -> ModeSetCommand {
        let text = try decodeText(payload, topic: topic).trimmedWhitespace
        if text.hasPrefix("{") {
            let object = try jsonObject(text, topic: topic)
            guard let mode = object["mode"]?.string, !mode.isEmpty else {
                throw .malformedPayload(topic: topic, reason: "JSON mode command needs a \"mode\" string")
            }
            var duration: Duration? = nil
            if let raw = object["duration"] {
                duration = try parseDuration(raw, topic: topic)
            }
            return ModeSetCommand(
                mode: mode, duration: duration, rooms: try stringList(object, "rooms", topic: topic),
                id: try boundedID(object, "id", topic: topic), replyTo: try replyTopic(object, topic: topic))
        }
        guard !text.isEmpty, !text.contains(where: { $0.isWhitespace && $0 != " " }) else {
            throw .malformedPayload(topic: topic, reason: "expected a mode id or JSON {\"mode\":\"night\"}")
        }
        return ModeSetCommand(mode: text)
    }

    public static func intentRequest(_ payload: [UInt8], topic: String) throws(DaemonError) -> IntentRequest {
        let text = try decodeText(payload, topic: topic).trimmedWhitespace
        guard text.hasPrefix("{") else {
            throw .malformedPayload(topic: topic, reason: "expected a JSON object {\"id\":...,\"text\":...}")
        }
        let object = try jsonObject(text, topic: topic)
        let id = try optionalString(object, "id", topic: topic) ?? ""
        try checked(topic) { () throws(MalformedInput) in try checkRequestID(id) }
        let replyTo = try replyTopic(object, topic: topic)
        var answers: [String: String] = [:]
        if let raw = object["answers"] {
            guard let dict = raw.object else {
                throw .malformedPayload(topic: topic, reason: "\"answers\" must be an object of strings")
            }
            for (k, v) in dict {
                guard let s = v.string else {
                    throw .malformedPayload(topic: topic, reason: "answer \(quoted(k)) must be a string")
                }
                answers[k] = s
            }
        }
        let confirmed = try flag(object, "confirm", topic: topic)
        let contextRoom = try boundedID(object, "context_room", topic: topic)
        if let t = object["text"] {
            guard let s = t.string, !s.trimmedWhitespace.isEmpty else {
                throw .malformedPayload(topic: topic, reason: "\"text\" must be a non-empty string")
            }
            try checked(topic) { () throws(MalformedInput) in try InputLimits.checkText(s) }
            return IntentRequest(id: id, body: .text(s), replyTo: replyTo, answers: answers, confirmed: confirmed, contextRoom: contextRoom)
        }
        guard let kind = object["intent"]?.string else {
            throw .malformedPayload(topic: topic, reason: "request needs \"text\" or \"intent\" (control, mode, query, routine, history)")
        }
        if kind == "history" {
            var limit = 20
            if let raw = object["limit"] {
                guard case .number(let n) = raw, n == n.rounded(), n > 0, n <= 1000 else {
                    throw .malformedPayload(topic: topic, reason: "\"limit\" must be a whole number from 1 to 1000")
                }
                limit = Int(n)
            }
            return IntentRequest(id: id, body: .history(limit: limit), replyTo: replyTo, answers: answers, confirmed: confirmed, contextRoom: contextRoom)
        }
        let intent = try typedIntent(kind, object, topic: topic)
        return IntentRequest(id: id, body: .intent(intent), replyTo: replyTo, answers: answers, confirmed: confirmed, contextRoom: contextRoom)
    }

    // MARK: - Pieces

    private static func typedIntent(_ kind: String, _ o: [String: JSONValue], topic: String) throws(DaemonError) -> HouseIntent {
        switch kind {
        case "control":
            var action: HouseAction? = nil
            if let raw = o["action"] {
                guard let s = raw.string, let a = HouseAction(rawValue: s.lowercased()) else {
                    throw .malformedPayload(topic: topic, reason: "\"action\" must be one of \(HouseAction.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                action = a
            }
            return .control(HouseControlIntent(
                room: try optionalString(o, "room", topic: topic), floor: try optionalString(o, "floor", topic: topic), action: action,
                device: try optionalString(o, "device", topic: topic),
                plural: try flag(o, "plural", topic: topic), wholeHouse: try flag(o, "whole_house", topic: topic),
                capability: try capability(o, topic: topic),
                position: try o["position"].map { (raw) throws(DaemonError) in try position(raw, topic: topic) }))
        case "mode":
            var duration: Duration? = nil
            if let raw = o["duration"] { duration = try parseDuration(raw, topic: topic) }
            return .setMode(SetHouseModeIntent(
                mode: try optionalString(o, "mode", topic: topic), duration: duration,
                rooms: try stringList(o, "rooms", topic: topic), floor: try optionalString(o, "floor", topic: topic)))
        case "query":
            var type: QueryType? = nil
            if let raw = o["query"] ?? o["query_type"] {
                guard let s = raw.string, let q = QueryType(rawValue: s) else {
                    throw .malformedPayload(topic: topic, reason: "\"query\" must be one of \(QueryType.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                type = q
            }
            var range: TimeRange? = nil
            if let raw = o["time_range"] {
                guard let s = raw.string, let r = parseTimeRange(s) else {
                    throw .malformedPayload(topic: topic, reason: "\"time_range\" must be today, yesterday, this-week or last-<N>-hours")
                }
                range = r
            }
            return .query(QueryHouseStatusIntent(
                queryType: type, timeRange: range, room: try optionalString(o, "room", topic: topic),
                floor: try optionalString(o, "floor", topic: topic),
                device: try optionalString(o, "device", topic: topic), plural: try flag(o, "plural", topic: topic)))
        case "routine":
            return .runRoutine(RunRoutineIntent(routine: try optionalString(o, "routine", topic: topic)))
        default:
            throw .malformedPayload(topic: topic, reason: "unknown intent \(quoted(kind)); expected control, mode, query, routine or history")
        }
    }

    /// `"capability"` of a typed control intent: what was asked that a relay cannot do.
    private static func capability(_ o: [String: JSONValue], topic: String) throws(DaemonError) -> DeviceCapability? {
        guard let raw = o["capability"], !raw.isNull else { return nil }
        guard let s = raw.string, let c = DeviceCapability(rawValue: s) else {
            throw .malformedPayload(topic: topic, reason: "\"capability\" must be one of \(DeviceCapability.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return c
    }

    /// `today`, `yesterday`, `this-week`, `last-6-hours`.
    public static func parseTimeRange(_ s: String) -> TimeRange? {
        switch s.lowercased() {
        case "today": return .today
        case "yesterday": return .yesterday
        case "this-week", "this_week", "week": return .thisWeek
        default:
            let parts = s.lowercased().split(separator: "-")
            if parts.count == 3, parts[0] == "last", parts[2] == "hours" || parts[2] == "hour",
               let n = Int(parts[1]), n > 0, n <= 24 * 366 {
                return .lastHours(n)
            }
            return nil
        }
    }

    private static func action(_ s: String) -> HouseAction? {
        switch s.uppercased() {
        case "ON": .on
        case "OFF": .off
        case "TOGGLE": .toggle
        case "OPEN": .open
        case "CLOSE": .close
        case "STOP": .stop
        default: nil
        }
    }

    private static func decodeText(_ payload: [UInt8], topic: String) throws(DaemonError) -> String {
        try checked(topic) { () throws(MalformedInput) in try InputLimits.checkPayload(payload) }
        guard !payload.isEmpty else { throw .malformedPayload(topic: topic, reason: "empty payload") }
        guard let text = String(validating: payload, as: UTF8.self) else {
            throw .malformedPayload(topic: topic, reason: "payload is not valid UTF-8")
        }
        return text
    }

    /// Runs a check of `InputLimits`, its refusal becoming a `DaemonError` on `topic`.
    private static func checked<T>(_ topic: String, _ check: () throws(MalformedInput) -> T) throws(DaemonError) -> T {
        do {
            return try check()
        } catch {
            throw .malformedPayload(topic: topic, reason: error.reason)
        }
    }

    /// The JSON object of a payload, parsed only once it passed `InputLimits.checkJSON`.
    private static func jsonObject(_ text: String, topic: String) throws(DaemonError) -> [String: JSONValue] {
        let parsed = try checked(topic) { () throws(MalformedInput) in try InputLimits.jsonValue(Array(text.utf8)) }
        guard let object = parsed.object else {
            throw .malformedPayload(topic: topic, reason: "expected a JSON object")
        }
        return object
    }

    private static func optionalString(_ o: [String: JSONValue], _ key: String, topic: String) throws(DaemonError) -> String? {
        guard let raw = o[key], !raw.isNull else { return nil }
        guard let s = raw.string else { throw .malformedPayload(topic: topic, reason: "\"\(key)\" must be a string") }
        return s
    }

    private static func stringList(_ o: [String: JSONValue], _ key: String, topic: String) throws(DaemonError) -> [String]? {
        guard let raw = o[key], !raw.isNull else { return nil }
        if let s = raw.string { return [s] }
        guard case .array(let list) = raw, case let strings = list.compactMap(\.string), strings.count == list.count else {
            throw .malformedPayload(topic: topic, reason: "\"\(key)\" must be a list of strings")
        }
        return strings
    }

    private static func flag(_ o: [String: JSONValue], _ key: String, topic: String) throws(DaemonError) -> Bool {
        switch o[key] {
        case nil, .null: return false
        case .bool(let b): return b
        default: throw .malformedPayload(topic: topic, reason: "\"\(key)\" must be true or false")
        }
    }

    /// The id and reply topic of a request that could not be parsed in full, so the error can be
    /// answered; nil when even those cannot be read. The payload is held to the same limits
    /// (an over-deep or oversized one is not parsed here either); a `reply_to` past them is not
    /// used, the reply goes to `<base>/intent/response/<id>` instead.
    public static func replyTarget(_ payload: [UInt8], layout: TopicLayout) -> (id: String, topic: String)? {
        guard let object = (try? InputLimits.jsonValue(payload))?.object,
              let id = object["id"]?.string, (try? checkRequestID(id)) != nil
        else { return nil }
        if let t = object["reply_to"]?.string, (try? InputLimits.checkTopic(t)) != nil {
            return (id, t)
        }
        return (id, layout.intentResponse(id: id))
    }

    /// A request id: non-empty, at most `InputLimits.maximumIDLength` bytes, and usable as a
    /// level of the default reply topic (no `/`, `+`, `#` or NUL).
    private static func checkRequestID(_ id: String) throws(MalformedInput) {
        guard !id.isEmpty else { throw MalformedInput("request needs a non-empty \"id\"") }
        try InputLimits.checkID(id)
        guard !id.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") || $0 == 0 })
        else { throw MalformedInput("\"id\" may not contain '/', '+', '#' or NUL") }
    }

    /// An optional id-like string (a command's `id`, a request's `context_room`), at most
    /// `InputLimits.maximumIDLength` bytes.
    private static func boundedID(_ o: [String: JSONValue], _ key: String, topic: String) throws(DaemonError) -> String? {
        guard let id = try optionalString(o, key, topic: topic) else { return nil }
        try checked(topic) { () throws(MalformedInput) in try InputLimits.checkID(id, field: key) }
        return id
    }

    private static func replyTopic(_ o: [String: JSONValue], topic: String) throws(DaemonError) -> String? {
        guard let t = try optionalString(o, "reply_to", topic: topic) else { return nil }
        try checked(topic) { () throws(MalformedInput) in try InputLimits.checkTopic(t) }
        return t
    }

    private static func parseDuration(_ raw: JSONValue, topic: String) throws(DaemonError) -> Duration {
        if let s = raw.string, let d = DurationParser.parse(s) { return d }
        if case .number(let n) = raw, n.isFinite, abs(n) < 1e9 {
            return .milliseconds(Int64((n * 1000).rounded()))
        }
        throw .malformedPayload(topic: topic, reason: "\"duration\" must be seconds or a duration like \"2h\"")
    }

    private static func quoted(_ s: String) -> String {
        "\"" + InputLimits.excerpt(s) + "\""
    }
}
