/// Writing JSON text without Foundation's `JSONEncoder` (which costs more than a whole command
/// on the command path: the `house/events` record goes out once per command).
extension JSONValue {
    /// Compact JSON text with the object keys sorted, as `JSONEncoder` with `.sortedKeys` writes
    /// it, except that `/` is not escaped. Whole numbers are written without a fraction; a number
    /// that is not finite (which JSON cannot carry) is written as `null`.
    public var jsonText: String {
        var out = ""
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n):
            if !n.isFinite { out += "null" }
            else if n == n.rounded(), abs(n) < 1e15 { out += String(Int64(n)) }
            else { out += "\(n)" }
        case .string(let s): Self.write(string: s, to: &out)
        case .array(let values):
            out += "["
            for (i, v) in values.enumerated() {
                if i > 0 { out += "," }
                v.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, key) in members.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                Self.write(string: key, to: &out)
                out += ":"
                members[key]!.write(to: &out)
            }
            out += "}"
        }
    }

    /// `s` as a JSON string literal: quotes, backslashes and control characters escaped.
    static func write(string s: String, to out: inout String) {
        out += "\""
        // Most strings need no escape: written whole.
        guard s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            out += s
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
