extension InputLimits {
    /// Refuses a JSON payload before any parser sees it: larger than `maximumPayloadSize`, with a
    /// NUL byte, or nesting arrays and objects deeper than `maximumJSONDepth`.
    ///
    /// One pass over the raw bytes, counting `[` and `{` outside strings. The count is never less
    /// than the nesting a parser reaches (a stray `]` cannot hide later openings), so a payload
    /// that passes cannot make a parser recurse deeper. NUL bytes are refused because JSON in
    /// UTF-8 has none and the parsers read a payload with them as UTF-16 or UTF-32, whose strings
    /// this scan would not follow.
    public static func checkJSON(_ payload: [UInt8]) throws(MalformedInput) {
        try checkPayload(payload)
        var depth = 0
        var inString = false
        var escaped = false
        for byte in payload {
            if byte == 0 { throw MalformedInput("JSON must be UTF-8 text without NUL bytes") }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maximumJSONDepth {
                    throw MalformedInput("JSON nested deeper than \(maximumJSONDepth) levels (the limit for arrays and objects)")
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth = max(depth - 1, 0)
            default:
                break
            }
        }
    }

    /// Parses a JSON payload that passes `checkJSON`: "invalid JSON: expected ... at byte N" when
    /// it cannot (`JSONValue(parsing:)`).
    public static func jsonValue(_ payload: [UInt8]) throws(MalformedInput) -> JSONValue {
        try checkJSON(payload)
        return try JSONValue(parsing: payload)
    }
}
