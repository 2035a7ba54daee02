/// Parses and formats the config's durations: `90s`, `30m`, `2h`, `1h30m`, `1h30`, `1.5h`, `500ms`,
/// `1d`; a bare number is seconds.
public enum DurationParser {
    /// The longest duration accepted: 100 years. Longer values (and ones that do not fit in a
    /// `Duration` at all, like `99999999999999999999h`) are not durations a house means.
    public static let maximumSeconds: Double = 100 * 365.25 * 86400

    /// The duration, or nil when the text is not a duration (or is negative or longer than
    /// `maximumSeconds`).
    public static func parse(_ text: String) -> Duration? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !t.isEmpty else { return nil }
        if let n = Double(t) { return milliseconds(seconds: n) }
        var total: Double = 0
        var number = ""
        var i = t.startIndex
        var lastUnitSeconds: Double? = nil
        var sawUnit = false
        while i < t.endIndex {
            let c = t[i]
            if c.isNumber || c == "." {
                number.append(c)
                i = t.index(after: i)
                continue
            }
            if c == " " { i = t.index(after: i); continue }
            var unit = ""
            while i < t.endIndex, t[i].isLetter { unit.append(t[i]); i = t.index(after: i) }
            guard let value = Double(number), let seconds = unitSeconds(unit) else { return nil }
            total += value * seconds
            lastUnitSeconds = seconds
            sawUnit = true
            number = ""
        }
        if !number.isEmpty {
            // "1h30": trailing number takes the next smaller unit.
            guard let value = Double(number), let last = lastUnitSeconds else { return nil }
            let next: Double = last >= 3600 ? 60 : (last >= 60 ? 1 : 0)
            guard next > 0 else { return nil }
            total += value * next
        }
        guard sawUnit else { return nil }
        return milliseconds(seconds: total)
    }

    /// `seconds` rounded to milliseconds; nil when not finite, negative or beyond the maximum.
    private static func milliseconds(seconds: Double) -> Duration? {
        guard seconds.isFinite, seconds >= 0, seconds <= maximumSeconds,
              let ms = Int64(exactly: (seconds * 1000).rounded())
        else { return nil }
        return .milliseconds(ms)
    }

    private static func unitSeconds(_ unit: String) -> Double? {
        switch unit {
        case "ms": 0.001
        case "s", "sec", "secs", "second", "seconds": 1
        case "m", "min", "mins", "minute", "minutes": 60
        case "h", "hr", "hrs", "hour", "hours": 3600
        case "d", "day", "days": 86400
        default: nil
        }
    }

    /// Compact form: `1h30m`, `45s`, `500ms`.
    public static func format(_ d: Duration) -> String {
        let ms = d.wholeMilliseconds
        if ms == 0 { return "0s" }
        if ms % 1000 != 0 && ms < 60_000 { return "\(ms)ms" }
        var s = ms / 1000
        var out = ""
        if s >= 86400 && s % 86400 == 0 { return "\(s / 86400)d" }
        if s >= 3600 { out += "\(s / 3600)h"; s %= 3600 }
        if s >= 60 { out += "\(s / 60)m"; s %= 60 }
        if s > 0 { out += "\(s)s" }
        return out
    }
}
