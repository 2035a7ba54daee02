/// A POSIX TZ rule, as the footer of a TZif file gives it (`GMT0BST,M3.5.0/1,M10.5.0`,
/// `CET-1CEST,M3.5.0,M10.5.0/3`, `<+03>-3`): a zone's standard time, its summer time and the
/// days and times they change, for every year after the file's transition table.
struct PosixZoneRule: Sendable, Hashable {
    var standard: HouseZone.LocalTimeType
    var daylight: HouseZone.LocalTimeType?
    /// When summer time starts (in local standard time) and ends (in local summer time).
    var start = Change(day: .monthWeekDay(month: 3, week: 2, weekday: 0), seconds: 7200)
    var end = Change(day: .monthWeekDay(month: 11, week: 1, weekday: 0), seconds: 7200)

    /// A day of the year and the local time on it.
    struct Change: Sendable, Hashable {
        var day: Day
        /// Seconds after local midnight (-167 h ... 167 h in version 3 files).
        var seconds: Int
    }

    enum Day: Sendable, Hashable {
        /// `Jn`: day 1...365, February 29 never counted.
        case julian(Int)
        /// `n`: day 0...365, February 29 counted in leap years.
        case zeroBased(Int)
        /// `Mm.w.d`: weekday `d` (0 Sunday) of week `w` (5: the last) of month `m`.
        case monthWeekDay(month: Int, week: Int, weekday: Int)
    }

    /// Parses a rule; nil when it is not one.
    init?(_ text: String) {
        var rest = Substring(text)
        guard let standardName = Self.name(&rest), let standardWest = Self.offset(&rest) else { return nil }
        standard = .init(offset: -standardWest, isDaylight: false, name: standardName)
        if rest.isEmpty { return }
        guard let daylightName = Self.name(&rest) else { return nil }
        var daylightWest = standardWest - 3600
        if let first = rest.first, first != "," {
            guard let west = Self.offset(&rest) else { return nil }
            daylightWest = west
        }
        daylight = .init(offset: -daylightWest, isDaylight: true, name: daylightName)
        if rest.isEmpty { return }  // No rule given: POSIX leaves it to the system; the US one, as glibc.
        guard rest.popFirst() == ",", let start = Self.change(&rest), rest.popFirst() == ",",
              let end = Self.change(&rest), rest.isEmpty else { return nil }
        self.start = start
        self.end = end
    }

    /// The local time type at `t` (seconds since 1970, UTC).
    func localTimeType(at t: Int64) -> HouseZone.LocalTimeType {
        guard let daylight else { return standard }
        let year = LocalDate(daysSinceEpoch: Int(Self.floorDiv(t + Int64(standard.offset), 86400))).year
        let (on, off) = changes(in: year, daylight: daylight)
        let summer = on < off ? (on <= t && t < off) : !(off <= t && t < on)
        return summer ? daylight : standard
    }

    /// The first change after `t`; nil for a zone without summer time.
    func nextTransition(after t: Int64) -> Int64? {
        guard let daylight else { return nil }
        let year = LocalDate(daysSinceEpoch: Int(Self.floorDiv(t, 86400))).year
        return (year - 1...year + 1).flatMap { y -> [Int64] in
            let (on, off) = changes(in: y, daylight: daylight)
            return [on, off]
        }.filter { $0 > t }.min()
    }

    /// The instants (UTC) summer time starts and ends in `year`.
    private func changes(in year: Int, daylight: HouseZone.LocalTimeType) -> (on: Int64, off: Int64) {
        let on = Int64(Self.days(start.day, in: year)) * 86400 + Int64(start.seconds) - Int64(standard.offset)
        let off = Int64(Self.days(end.day, in: year)) * 86400 + Int64(end.seconds) - Int64(daylight.offset)
        return (on, off)
    }

    /// The day `day` of `year`, in days since 1970-01-01.
    private static func days(_ day: Day, in year: Int) -> Int {
        let january1 = LocalDate.daysFromCivil(year, 1, 1)
        switch day {
        case .julian(let n):
            let leap = LocalDate.daysIn(month: 2, year: year) == 29
            return january1 + n - 1 + (leap && n >= 60 ? 1 : 0)
        case .zeroBased(let n):
            return january1 + n
        case .monthWeekDay(let month, let week, let weekday):
            let first = LocalDate.daysFromCivil(year, month, 1)
            let firstWeekday = ((first + 4) % 7 + 7) % 7  // 0 Sunday; 1970-01-01 was a Thursday.
            var day = first + (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
            while day >= first + LocalDate.daysIn(month: month, year: year) { day -= 7 }
            return day
        }
    }

    // MARK: Parsing

    /// A name at the start of `text` (three or more letters, or anything between `<` and `>`).
    private static func name(_ text: inout Substring) -> String? {
        if text.first == "<" {
            guard let end = text.firstIndex(of: ">") else { return nil }
            let name = text[text.index(after: text.startIndex)..<end]
            text = text[text.index(after: end)...]
            return name.isEmpty ? nil : String(name)
        }
        let letters = text.prefix { $0.isLetter }
        guard letters.count >= 3 else { return nil }
        text = text.dropFirst(letters.count)
        return String(letters)
    }

    /// `[+-]hh[:mm[:ss]]` in seconds.
    private static func offset(_ text: inout Substring) -> Int? {
        var sign = 1
        if let c = text.first, c == "+" || c == "-" {
            sign = c == "-" ? -1 : 1
            text = text.dropFirst()
        }
        var total = 0
        for (i, unit) in [3600, 60, 1].enumerated() {
            if i > 0 {
                guard text.first == ":" else { break }
                text = text.dropFirst()
            }
            let digits = text.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 3, let n = Int(digits) else { return nil }
            text = text.dropFirst(digits.count)
            total += n * unit
        }
        return sign * total
    }

    /// `Jn`, `n` or `Mm.w.d`, then an optional `/time`.
    private static func change(_ text: inout Substring) -> Change? {
        let day: Day
        func number(_ range: ClosedRange<Int>) -> Int? {
            let digits = text.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let n = Int(digits), range ~= n else { return nil }
            text = text.dropFirst(digits.count)
            return n
        }
        switch text.first {
        case "J":
            text = text.dropFirst()
            guard let n = number(1...365) else { return nil }
            day = .julian(n)
        case "M":
            text = text.dropFirst()
            guard let m = number(1...12), text.popFirst() == ".", let w = number(1...5), text.popFirst() == ".",
                  let d = number(0...6) else { return nil }
            day = .monthWeekDay(month: m, week: w, weekday: d)
        default:
            guard let n = number(0...365) else { return nil }
            day = .zeroBased(n)
        }
        var seconds = 7200
        if text.first == "/" {
            text = text.dropFirst()
            guard let s = offset(&text) else { return nil }
            seconds = s
        }
        return Change(day: day, seconds: seconds)
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}
