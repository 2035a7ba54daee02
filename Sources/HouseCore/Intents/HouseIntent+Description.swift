/// Short readable forms of intents, for traces, logs and history.
extension HouseIntent: CustomStringConvertible {
    public var description: String {
        switch self {
        case .control(let i):
            var parts = ["control"]
            if let r = i.room { parts.append("room=\(r)") }
            if let d = i.device { parts.append("device=\(d)") }
            if let a = i.action { parts.append("action=\(a.rawValue)") }
            if i.plural { parts.append("plural") }
            if i.wholeHouse { parts.append("whole-house") }
            if let c = i.capability { parts.append("asks-for=\(c.rawValue)") }
            return parts.joined(separator: " ")
        case .setMode(let i):
            var parts = ["set-mode"]
            if let m = i.mode { parts.append("mode=\(m)") }
            if let d = i.duration { parts.append("duration=\(DurationParser.format(d))") }
            if let r = i.rooms { parts.append("rooms=\(r.joined(separator: ","))") }
            return parts.joined(separator: " ")
        case .query(let i):
            var parts = ["query"]
            if let t = i.queryType { parts.append("type=\(t.rawValue)") }
            if let r = i.timeRange { parts.append("range=\(IntentResolver.rangeID(r))") }
            if let r = i.room { parts.append("room=\(r)") }
            if let d = i.device { parts.append("device=\(d)") }
            return parts.joined(separator: " ")
        case .runRoutine(let i):
            return "run-routine" + (i.routine.map { " routine=\($0)" } ?? "")
        }
    }
}
