/// Writing JSON text without Foundation's `JSONEncoder` (which costs more than a whole command
/// on the command path: the `house/events` record goes out once per command, see
/// `DonationEvent.json`).
extension JSONValue {
    /// Appends `s` as a JSON string literal, as `JSONEncoder` writes it with
    /// `.withoutEscapingSlashes`: quotes, backslashes and control characters escaped.
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
