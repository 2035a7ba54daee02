/// Reading JSON text into a `JSONValue` without Foundation's `JSONDecoder`: the topic API's
/// payloads and the sensors' readings are parsed here, so the daemon's request paths do not carry
/// FoundationEssentials' decoder (its code is larger than the rest of a request's).
extension JSONValue {
    /// Parses `bytes` as one JSON value (RFC 8259: any value at the top, whitespace around it),
    /// as `JSONDecoder` reads it into a `JSONValue`: numbers as `Double`, `\u` escapes with their
    /// surrogate pairs, the first of repeated member names, a UTF-8 byte order mark at the start
    /// and a comma before a closing bracket (both of which `JSONDecoder` allows; it refuses `0e3`,
    /// which is JSON and read here, and does not check the strings of a repeated name's later
    /// values, which are checked here). Refuses what is not JSON with what was expected where
    /// ("invalid JSON: expected ':' after a member name at byte 12"), invalid UTF-8, a number too
    /// large for a `Double`, and arrays and objects nested deeper than `maximumDepth`.
    public init(parsing bytes: [UInt8], maximumDepth: Int = InputLimits.maximumJSONDepth) throws(MalformedInput) {
        var parser = Parser(bytes: bytes, maximumDepth: maximumDepth)
        // A UTF-8 byte order mark before the value, which `JSONDecoder` skips.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipWhitespace()
        self = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.failure("the end of the text after the value") }
    }

    private struct Parser {
        let bytes: [UInt8]
        let maximumDepth: Int
        var index = 0

        func failure(_ expected: String) -> MalformedInput {
            let found = index < bytes.count ? "at byte \(index)" : "at the end"
            return MalformedInput("invalid JSON: expected \(expected) \(found)")
        }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        mutating func literal(_ word: StaticString, _ value: JSONValue) throws(MalformedInput) -> JSONValue {
            let count = word.utf8CodeUnitCount
            let matches = index + count <= bytes.count && (0..<count).allSatisfy { bytes[index + $0] == word.utf8Start[$0] }
            guard matches else { throw failure("a value") }
            index += count
            return value
        }

        mutating func value(depth: Int) throws(MalformedInput) -> JSONValue {
            guard let byte = current else { throw failure("a value") }
            switch byte {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw failure("a value")
            }
        }

        mutating func nested(_ depth: Int) throws(MalformedInput) {
            guard depth <= maximumDepth else {
                throw MalformedInput("JSON nested deeper than \(maximumDepth) levels (the limit for arrays and objects)")
            }
            index += 1
            skipWhitespace()
        }

        /// Moves past `byte` if it is the current one.
        mutating func take(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            index += 1
            return true
        }

        /// After a member or an element: true at the closing `bracket` (also after a comma, which
        /// `JSONDecoder` allows before it), false after a comma with more to come.
        mutating func closes(_ bracket: UInt8, in container: String) throws(MalformedInput) -> Bool {
            skipWhitespace()
            if take(bracket) { return true }
            guard take(UInt8(ascii: ",")) else {
                throw failure("',' or '\(Character(Unicode.Scalar(bracket)))' in \(container)")
            }
            skipWhitespace()
            return take(bracket)
        }

        mutating func object(depth: Int) throws(MalformedInput) -> JSONValue {
            try nested(depth)
            var members: [String: JSONValue] = [:]
            if take(UInt8(ascii: "}")) { return .object(members) }
            repeat {
                guard current == UInt8(ascii: "\"") else { throw failure("a member name in quotes") }
                let name = try string()
                skipWhitespace()
                guard take(UInt8(ascii: ":")) else { throw failure("':' after a member name") }
                skipWhitespace()
                let member = try value(depth: depth)
                // The first of repeated names, as `JSONDecoder` keeps it.
                if members[name] == nil { members[name] = member }
            } while try !closes(UInt8(ascii: "}"), in: "an object")
            return .object(members)
        }

        mutating func array(depth: Int) throws(MalformedInput) -> JSONValue {
            try nested(depth)
            var elements: [JSONValue] = []
            if take(UInt8(ascii: "]")) { return .array(elements) }
            repeat {
                elements.append(try value(depth: depth))
            } while try !closes(UInt8(ascii: "]"), in: "an array")
            return .array(elements)
        }

        mutating func digits() -> Int {
            let start = index
            while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
            return index - start
        }

        mutating func number() throws(MalformedInput) -> Double {
            let start = index
            if current == UInt8(ascii: "-") { index += 1 }
            if current == UInt8(ascii: "0") {
                index += 1
            } else {
                guard digits() > 0 else { throw failure("a digit") }
            }
            if current == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw failure("a digit after the decimal point") }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { throw failure("a digit in the exponent") }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let number = Double(text), number.isFinite else {
                index = start
                throw failure("a number a Double can hold")
            }
            return number
        }

        mutating func hexQuad() throws(MalformedInput) -> UInt16 {
            guard index + 4 <= bytes.count else { throw failure("four hex digits after \\u") }
            var value: UInt16 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw failure("four hex digits after \\u")
                }
                value = value << 4 | UInt16(digit)
                index += 1
            }
            return value
        }

        /// A string literal from its opening quote: its text, escapes resolved.
        mutating func string() throws(MalformedInput) -> String {
            index += 1
            var text: [UInt8] = []
            var start = index
            while true {
                guard let byte = current else { throw failure("'\"' to end a string") }
                if byte == UInt8(ascii: "\"") { break }
                if byte < 0x20 { throw failure("control characters to be escaped in a string") }
                if byte != UInt8(ascii: "\\") {
                    index += 1
                    continue
                }
                text += bytes[start..<index]
                index += 1
                guard let escaped = current else { throw failure("an escape after '\\'") }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    let unit = try hexQuad()
                    var scalar: Unicode.Scalar?
                    if UTF16.isLeadSurrogate(unit) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw failure("a low surrogate after a high one")
                        }
                        index += 2
                        let low = try hexQuad()
                        guard UTF16.isTrailSurrogate(low) else { throw failure("a low surrogate after a high one") }
                        scalar = Unicode.Scalar(0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(low - 0xDC00))
                    } else {
                        scalar = Unicode.Scalar(unit)
                    }
                    guard let scalar else { throw failure("a high surrogate before a low one") }
                    UTF8.encode(scalar) { text.append($0) }
                default:
                    index -= 1
                    throw failure("one of \" \\ / b f n r t u after '\\'")
                }
                start = index
            }
            text += bytes[start..<index]
            index += 1
            guard let decoded = String(validating: text, as: UTF8.self) else {
                throw MalformedInput("invalid JSON: a string is not valid UTF-8")
            }
            return decoded
        }
    }
}
