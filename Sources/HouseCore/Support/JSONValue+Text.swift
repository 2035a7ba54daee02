/// Writing JSON text without Foundation's `JSONEncoder`: `SortedJSONEncoder` and the payloads
/// written field by field (`DonationEvent.json`) escape strings here.
extension JSONValue {
    /// Appends `s` as a JSON string literal, escaped as `JSONEncoder` escapes it: quotes and
    /// backslashes, `\b \f \n \r \t`, other control characters as `\u00XX`, and `/` as `\/` when
    /// `escapingSlashes` (`JSONEncoder`'s default; `.withoutEscapingSlashes` turns it off).
    static func write(string s: String, to out: inout String, escapingSlashes: Bool = false) {
        out += "\""
        // Most strings need no escape: written whole.
        guard s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || (escapingSlashes && $0 == UInt8(ascii: "/")) }) else {
            out += s
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/" where escapingSlashes: out += "\\/"
            case "\u{8}": out += "\\b"
            case "\u{C}": out += "\\f"
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
