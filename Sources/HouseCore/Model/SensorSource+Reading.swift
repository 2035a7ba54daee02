import Foundation

extension SensorSource {
    /// The reading a payload on `stateTopic` gives: its number, or why it gives none (never a
    /// crash, whatever the bytes).
    public func reading(from payload: [UInt8], at instant: WallInstant) -> SensorReading {
        let text = String(decoding: payload, as: UTF8.self).trimmedWhitespace
        guard let jsonField else {
            guard let v = Double(text), v.isFinite else {
                return .unavailable(reason: "the payload \(Self.quoted(text)) on \(stateTopic) is not a number")
            }
            return .value(v, at: instant)
        }
        guard let json = try? JSONValue(parsing: payload) else {
            return .unavailable(reason: "the payload \(Self.quoted(text)) on \(stateTopic) is not JSON")
        }
        guard let field = json.value(atPath: jsonField), !field.isNull else {
            return .unavailable(reason: "the payload on \(stateTopic) has no field \(jsonField)")
        }
        switch field {
        case .number(let v) where v.isFinite: return .value(v, at: instant)
        case .string(let s):
            if let v = Double(s.trimmedWhitespace), v.isFinite { return .value(v, at: instant) }
        default: break
        }
        return .unavailable(reason: "the field \(jsonField) on \(stateTopic) is not a number")
    }

    private static func quoted(_ text: String) -> String {
        text.count <= 40 ? "'\(text)'" : "'\(text.prefix(40))...'"
    }
}
