import Foundation

/// A JSON value read from a payload: typed, never `Any`. The topic API's parsers and the rules'
/// JSON field conditions read payloads through it (`InputLimits.jsonValue`), so each can say
/// exactly which field has the wrong type.
public enum JSONValue: Sendable, Hashable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? c.decode(Double.self) {
            self = .number(n)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    /// The string, when this is one.
    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The members, when this is an object.
    public var object: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The value at `path`, object member names separated by `.` (`AM2301.Temperature`).
    public func value(atPath path: String) -> JSONValue? {
        var current = self
        for name in path.split(separator: ".", omittingEmptySubsequences: false) {
            guard let next = current.object?[String(name)] else { return nil }
            current = next
        }
        return current
    }

    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    /// A scalar as text, as a rule's `json_value` compares it: a string as it is, `true` or
    /// `false`, a number as JSON writes it (`2`, `2.5`); nil for null, arrays and objects.
    public var scalarText: String? {
        switch self {
        case .string(let s): return s
        case .bool(let b): return b ? "true" : "false"
        case .number(let n):
            if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
            return "\(n)"
        case .null, .array, .object: return nil
        }
    }
}
