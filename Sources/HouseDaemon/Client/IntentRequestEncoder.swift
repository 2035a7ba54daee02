import Foundation
import HouseCore

/// Writes `intent/request` payloads: the inverse of `CommandPayloadParser.intentRequest`.
public enum IntentRequestEncoder {
    public static func payload(id: String, body: IntentRequest.Body, answers: IntentAnswers = .none,
                               replyTo: String? = nil) -> [UInt8] {
        var o: [String: Any] = ["id": id]
        if let replyTo { o["reply_to"] = replyTo }
        if !answers.choices.isEmpty { o["answers"] = answers.choices }
        if answers.confirmed { o["confirm"] = true }
        if let room = answers.contextRoom { o["context_room"] = room }
        switch body {
        case .text(let text):
            o["text"] = text
        case .history(let limit):
            o["intent"] = "history"
            o["limit"] = limit
        case .intent(let intent):
            switch intent {
            case .control(let c):
                o["intent"] = "control"
                if let room = c.room { o["room"] = room }
                if let floor = c.floor { o["floor"] = floor }
                if let device = c.device { o["device"] = device }
                if let action = c.action { o["action"] = action.rawValue }
                if c.plural { o["plural"] = true }
                if c.wholeHouse { o["whole_house"] = true }
                if let capability = c.capability { o["capability"] = capability.rawValue }
            case .setMode(let m):
                o["intent"] = "mode"
                if let mode = m.mode { o["mode"] = mode }
                if let d = m.duration { o["duration"] = DurationParser.format(d) }
                if let rooms = m.rooms { o["rooms"] = rooms }
                if let floor = m.floor { o["floor"] = floor }
            case .query(let q):
                o["intent"] = "query"
                if let t = q.queryType { o["query"] = t.rawValue }
                if let r = q.timeRange { o["time_range"] = timeRange(r) }
                if let room = q.room { o["room"] = room }
                if let floor = q.floor { o["floor"] = floor }
                if let device = q.device { o["device"] = device }
                if q.plural { o["plural"] = true }
            case .runRoutine(let r):
                o["intent"] = "routine"
                if let routine = r.routine { o["routine"] = routine }
            }
        }
        let data = (try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Array(data)
    }

    static func timeRange(_ r: TimeRange) -> String {
        switch r {
        case .today: "today"
        case .yesterday: "yesterday"
        case .thisWeek: "this-week"
        case .lastHours(let n): "last-\(n)-hours"
        }
    }
}
