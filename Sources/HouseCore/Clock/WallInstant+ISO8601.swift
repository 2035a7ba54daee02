import Foundation

extension WallInstant {
    /// ISO 8601 in UTC with milliseconds (`2026-03-04T10:00:00.000Z`), as
    /// `Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)` writes it, from
    /// the day count alone (the formatter cost a fifth of a command's own time on `house/events`).
    public var iso8601UTC: String {
        let ms = sinceEpoch.wholeMilliseconds
        let (days, msOfDay) = ms.quotientAndRemainder(dividingBy: 86_400_000)
        let day = msOfDay < 0 ? Int(days) - 1 : Int(days)
        let t = msOfDay < 0 ? msOfDay + 86_400_000 : msOfDay
        let milli = t % 1000
        let millis = milli < 10 ? "00\(milli)" : milli < 100 ? "0\(milli)" : "\(milli)"
        return LocalDate(daysSinceEpoch: day).iso8601(second: Int(t / 1000)) + ".\(millis)Z"
    }
}

extension WallInstant {
    /// Parses an ISO 8601 timestamp with its offset: `2026-03-02T06:47:12+00:00`, `...Z`,
    /// `...+0100`, with or without fractions of a second (a space for the `T` too); nil when it is
    /// not one (no offset, no seconds, a date that does not exist).
    public init?(iso8601 text: String) {
        var t = Array(text.utf8)
        while t.last == 0x20 { t.removeLast() }
        if let first = t.firstIndex(where: { $0 != 0x20 }), first > 0 { t.removeFirst(first) }
        guard t.count >= 20, t[4] == 0x2D, t[7] == 0x2D, let year = Self.number(t[0..<4]), let month = Self.number(t[5..<7]),
              let dayOfMonth = Self.number(t[8..<10]), let day = LocalDate(year: year, month: month, day: dayOfMonth),
              t[10] == 0x54 || t[10] == 0x20,
              t[13] == 0x3A, t[16] == 0x3A,
              let h = Self.number(t[11..<13]), let m = Self.number(t[14..<16]), let s = Self.number(t[17..<19]),
              h < 24, m < 60, s < 61 else { return nil }
        var i = 19
        var millis = 0
        if t[i] == 0x2E || t[i] == 0x2C {
            i += 1
            var digits = 0
            while i < t.count, (0x30...0x39).contains(t[i]) {
                if digits < 3 { millis = millis * 10 + Int(t[i] - 0x30) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 3) { millis *= 10 }
        }
        var offset = 0
        guard i < t.count else { return nil }
        if t[i] == 0x5A || t[i] == 0x7A {
            i += 1
        } else if t[i] == 0x2B || t[i] == 0x2D {
            let rest = t[(i + 1)...].filter { $0 != 0x3A }
            guard rest.count == 4, let oh = Self.number(rest[rest.startIndex..<rest.startIndex + 2]),
                  let om = Self.number(rest[(rest.startIndex + 2)...]), oh < 24, om < 60 else { return nil }
            offset = (oh * 60 + om) * 60 * (t[i] == 0x2D ? -1 : 1)
            i = t.count
        } else {
            return nil
        }
        guard i == t.count else { return nil }
        let seconds = day.daysSinceEpoch * 86_400 + h * 3600 + m * 60 + s - offset
        self.init(sinceEpoch: .milliseconds(Int64(seconds) * 1000 + Int64(millis)))
    }

    private static func number(_ digits: some Collection<UInt8>) -> Int? {
        var n = 0
        for d in digits {
            guard (0x30...0x39).contains(d) else { return nil }
            n = n * 10 + Int(d - 0x30)
        }
        return digits.isEmpty ? nil : n
    }
}
