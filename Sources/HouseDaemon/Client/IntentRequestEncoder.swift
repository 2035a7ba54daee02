import Foundation
import HouseCore

/// Writes `intent/request` payloads: the inverse of `CommandPayloadParser.intentRequest`.
public enum IntentRequestEncoder {
    /// The request's JSON fields (absent ones are left out).
    struct Payload: Encodable {
        var id: String
        var replyTo: String?
        var answers: [String: String]?
        var confirm: Bool?
        var contextRoom: String?
        var text: String?
        var intent: String?
        var limit: Int?
        var room: String?
        var floor: String?
        var device: String?
        var action: String?
        var plural: Bool?
        var wholeHouse: Bool?
        var capability: String?
        var position: Int?
        var mode: String?
        var duration: String?
        var rooms: [String]?
        var query: String?
        var timeRange: String?
        var routine: String?

        enum CodingKeys: String, CodingKey {
            case id, answers, confirm, text, intent, limit, room, floor, device, action, plural, capability, position, mode
            case duration, rooms, query, routine
            case replyTo = "reply_to", contextRoom = "context_room", wholeHouse = "whole_house", timeRange = "time_range"
        }
    }

    public static func payload(id: String, body: IntentRequest.Body, answers: IntentAnswers = .none,
                               replyTo: String? = nil) -> [UInt8] {
        var o = Payload(id: id, replyTo: replyTo)
        if !answers.choices.isEmpty { o.answers = answers.choices }
        if answers.confirmed { o.confirm = true }
        o.contextRoom = answers.contextRoom
        switch body {
        case .text(let text):
            o.text = text
        case .history(let limit):
            o.intent = "history"
            o.limit = limit
        case .intent(let intent):
            switch intent {
            case .control(let c):
                o.intent = "control"
                (o.room, o.floor, o.device) = (c.room, c.floor, c.device)
                o.action = c.action?.rawValue
                if c.plural { o.plural = true }
                if c.wholeHouse { o.wholeHouse = true }
                o.capability = c.capability?.rawValue
                o.position = c.position
            case .setMode(let m):
                o.intent = "mode"
                (o.mode, o.rooms, o.floor) = (m.mode, m.rooms, m.floor)
                o.duration = m.duration.map(DurationParser.format)
            case .query(let q):
                o.intent = "query"
                o.query = q.queryType?.rawValue
                o.timeRange = q.timeRange.map(timeRange)
                (o.room, o.floor, o.device) = (q.room, q.floor, q.device)
                if q.plural { o.plural = true }
            case .runRoutine(let r):
                o.intent = "routine"
                o.routine = r.routine
            }
        }
        return Array(o.sortedJSON().utf8)
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
