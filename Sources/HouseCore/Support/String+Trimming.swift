extension String {
    /// The text without leading and trailing whitespace and line breaks (Unicode's White_Space:
    /// what Foundation's `trimmingCharacters(in: .whitespacesAndNewlines)` removes), in Swift
    /// alone: no bridge to `NSString`, and a text with nothing to trim comes back as it is. The
    /// topic API trims every payload it reads with it (a `set` payload's trim through Foundation
    /// cost more than the rest of its parse).
    public var trimmedWhitespace: String {
        let scalars = unicodeScalars
        var start = scalars.startIndex, end = scalars.endIndex
        while start < end, Self.isWhitespace(scalars[start]) { start = scalars.index(after: start) }
        while end > start {
            let last = scalars.index(before: end)
            guard Self.isWhitespace(scalars[last]) else { break }
            end = last
        }
        if start == scalars.startIndex, end == scalars.endIndex { return self }
        return String(scalars[start..<end])
    }

    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII ? scalar == " " || (0x09...0x0D).contains(scalar.value) : scalar.properties.isWhitespace
    }
}
