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
