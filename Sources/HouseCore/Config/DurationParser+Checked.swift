/// Duration parsing for untrusted text (config files, command-line options).
extension DurationParser {
    /// The largest number accepted in a duration or offset; larger values are refused rather
    /// than overflowing `Duration`'s conversion.
    static let largestNumber = 1e9

    /// Like `parse`, but nil (instead of a trap) for absurd numbers such as `1e300` or
    /// `99999999999999999999s`.
    public static func parseChecked(_ text: String) -> Duration? {
        guard isSafeNumberText(text) else { return nil }
        return parse(text)
    }

    /// No digit run longer than 9 and no number (including exponent forms) above 1e9.
    static func isSafeNumberText(_ text: String) -> Bool {
        var run = 0
        for c in text {
            if c.isNumber { run += 1; if run > 9 { return false } } else { run = 0 }
        }
        let tokens = text.split(whereSeparator: { $0 == "+" || $0 == "-" || $0 == " " })
        for t in tokens {
            if let v = Double(t), !v.isFinite || abs(v) > largestNumber { return false }
            // "1e300s": a number with a unit suffix.
            let numeric = t.prefix { $0.isNumber || $0 == "." || $0 == "e" || $0 == "E" }
            if let v = Double(numeric), !v.isFinite || abs(v) > largestNumber { return false }
        }
        return true
    }
}

extension TimeEdge {
    /// Like `init(_:)`, but nil for absurd offsets instead of a trap.
    public static func parseChecked(_ text: String) -> TimeEdge? {
        guard DurationParser.isSafeNumberText(text) else { return nil }
        return TimeEdge(text)
    }
}
