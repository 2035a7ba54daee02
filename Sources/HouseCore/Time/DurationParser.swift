/// Parses and formats the config's durations: `90s`, `30m`, `2h`, `1h30m`, `1h30`, `1.5h`, `500ms`,
/// `1d`; a bare number is seconds.
public enum DurationParser {
    /// The duration, or nil when the text is not a duration.
    public static func parse(_ text: String) -> Duration? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !t.isEmpty else { return nil }
        if let n = Double(t), n.isFinite { return .milliseconds(Int64((n * 1000).rounded())) }
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
        guard sawUnit, total.isFinite else { return nil }
        return .milliseconds(Int64((total * 1000).rounded()))
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
        let ms = d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
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
