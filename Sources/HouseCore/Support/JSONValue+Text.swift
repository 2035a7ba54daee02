/// Writing JSON text without Foundation's `JSONEncoder`: `SortedJSONEncoder` and the payloads
/// written field by field (`DonationEvent.json`) escape strings here.
extension JSONValue {
    /// Appends `s` as a JSON string literal, escaped as `JSONEncoder` escapes it: quotes and
    /// backslashes, `\b \f \n \r \t`, other control characters as `\u00XX`, and `/` as `\/` when
    /// `escapingSlashes` (`JSONEncoder`'s default; `.withoutEscapingSlashes` turns it off).
    static func write(string s: String, to out: inout String, escapingSlashes: Bool = false) {
        out += "\""
        // Most strings need no escape: written whole.
        guard needsEscape(s, escapingSlashes: escapingSlashes) else {
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

    /// `write(string:to:escapingSlashes:)` into UTF-8 bytes.
    static func write(string s: String, to out: inout [UInt8], escapingSlashes: Bool = false) {
        guard needsEscape(s, escapingSlashes: escapingSlashes) else {
            out.append(UInt8(ascii: "\""))
            out += s.utf8
            out.append(UInt8(ascii: "\""))
            return
        }
        var text = ""
        write(string: s, to: &text, escapingSlashes: escapingSlashes)
        out += text.utf8
    }

    /// Whether `s` holds a byte a JSON string must escape (one pass over its UTF-8 bytes).
    private static func needsEscape(_ s: String, escapingSlashes: Bool) -> Bool {
        func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            for b in bytes where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || (escapingSlashes && b == UInt8(ascii: "/")) {
                return true
            }
            return false
        }
        if let found = s.utf8.withContiguousStorageIfAvailable(scan) { return found }
        var copy = s
        return copy.withUTF8(scan)
    }
}
