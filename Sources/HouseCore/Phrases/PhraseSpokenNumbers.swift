/// The built-in `{number}` and `{duration}` slot lists: numbers in words and digits
/// ("twenty five", "25"), and durations the way people say them ("two hours", "90 minutes",
/// "1h30", "an hour", "half an hour", "an hour and a half", "2 hours 15 minutes").
///
/// Each function returns every way the words starting at `start` can be read, as
/// (end index, value); the matcher keeps the readings that let the whole sentence match.
public enum PhraseSpokenNumbers {
    static let units: [String: Int] = [
        "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
        "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
        "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    ]
    static let tens: [String: Int] = [
        "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    ]
    static let unitSeconds: [String: Int] = [
        "second": 1, "seconds": 1, "sec": 1, "secs": 1, "s": 1,
        "minute": 60, "minutes": 60, "min": 60, "mins": 60, "m": 60,
        "hour": 3600, "hours": 3600, "hr": 3600, "hrs": 3600, "h": 3600,
        "day": 86400, "days": 86400, "week": 604_800, "weeks": 604_800,
    ]

    /// Durations longer than this (a year) are not read as durations.
    static let maxSeconds = 366 * 86400

    /// Whole numbers: digits ("25") or words ("twenty five", "twelve").
    public static func numbers(_ tokens: [String], from start: Int) -> [(end: Int, value: Int)] {
        guard start < tokens.count else { return [] }
        let t = tokens[start]
        if let first = t.utf8.first, first >= 48, first <= 57 {
            if let n = Int(t) { return [(start + 1, n)] }
            return []
        }
        if let u = units[t] { return [(start + 1, u)] }
        if let ten = tens[t] {
            var result = [(end: start + 1, value: ten)]
            if start + 1 < tokens.count, let u = units[tokens[start + 1]], u >= 1, u <= 9 {
                result.append((start + 2, ten + u))
            }
            return result
        }
        return []
    }

    /// Quantities before a unit: numbers, decimals, "a"/"an", "a couple of"; each with "and a half".
    static func quantities(_ tokens: [String], from start: Int) -> [(end: Int, value: Double)] {
        guard start < tokens.count else { return [] }
        var result: [(end: Int, value: Double)] = []
        let t = tokens[start]
        if t == "a" || t == "an" {
            result.append((start + 1, 1))
            if start + 2 < tokens.count, tokens[start + 1] == "couple", tokens[start + 2] == "of" {
                result.append((start + 3, 2))
            }
        } else if t.contains("."), let d = Double(t), d.isFinite, d >= 0 {
            result.append((start + 1, d))
        } else {
            for n in numbers(tokens, from: start) { result.append((n.end, Double(n.value))) }
        }
        for q in result where q.end + 2 < tokens.count
            && tokens[q.end] == "and" && tokens[q.end + 1] == "a" && tokens[q.end + 2] == "half" {
            result.append((q.end + 3, q.value + 0.5))
        }
        return result
    }

    /// One duration component: "two hours", "an hour and a half", "half an hour", "1h30".
    static func components(_ tokens: [String], from start: Int) -> [(end: Int, seconds: Int, unit: Int)] {
        guard start < tokens.count else { return [] }
        var result: [(end: Int, seconds: Int, unit: Int)] = []
        let t = tokens[start]
        // "half an hour", "half a day", "half hour"; "a half hour"
        var halfStart: Int? = nil
        if t == "half" { halfStart = start + 1 }
        if (t == "a" || t == "an"), start + 1 < tokens.count, tokens[start + 1] == "half" { halfStart = start + 2 }
        if var i = halfStart {
            if i < tokens.count, tokens[i] == "a" || tokens[i] == "an" { i += 1 }
            if i < tokens.count, let u = unitSeconds[tokens[i]], u >= 60 {
                result.append((i + 1, u / 2, u))
            }
        }
        // compact "1h30", "2h", "90m", "45min"
        if t.utf8.count <= 12, let f = t.utf8.first, f >= 48, f <= 57, t.utf8.contains(where: { $0 >= 97 && $0 <= 122 }),
           let d = DurationParser.parse(t), d.components.seconds <= maxSeconds {
            let s = Int(d.components.seconds)
            result.append((start + 1, s, s >= 3600 ? 3600 : (s >= 60 ? 60 : 1)))
        }
        for q in quantities(tokens, from: start) {
            guard q.end < tokens.count, let u = unitSeconds[tokens[q.end]], q.value * Double(u) <= Double(maxSeconds) else { continue }
            var value = q.value
            var end = q.end + 1
            result.append((end, Int((value * Double(u)).rounded()), u))
            if end + 2 < tokens.count, tokens[end] == "and", tokens[end + 1] == "a", tokens[end + 2] == "half",
               (value + 0.5) * Double(u) <= Double(maxSeconds) {
                value += 0.5
                end += 3
                result.append((end, Int((value * Double(u)).rounded()), u))
            }
        }
        return result
    }

    /// Durations in seconds: one component, optionally followed by a smaller one
    /// ("2 hours 30 minutes", "an hour and fifteen minutes") or a bare number of the next unit ("1 hour 30").
    public static func durations(_ tokens: [String], from start: Int) -> [(end: Int, seconds: Int)] {
        var result: [(end: Int, seconds: Int)] = []
        for first in components(tokens, from: start) {
            result.append((first.end, first.seconds))
            var next = first.end
            if next < tokens.count, tokens[next] == "and" { next += 1 }
            for second in components(tokens, from: next) where second.unit < first.unit {
                result.append((second.end, first.seconds + second.seconds))
            }
            if first.unit >= 60 {
                for n in numbers(tokens, from: first.end) where n.value > 0 && n.value < 60 {
                    result.append((n.end, first.seconds + n.value * (first.unit == 3600 ? 60 : 1)))
                }
            }
        }
        return result
    }
}
