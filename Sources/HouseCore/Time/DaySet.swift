import Foundation

/// A set of days of the week. Weekdays use `Calendar`'s numbering: 1 = Sunday ... 7 = Saturday.
public struct DaySet: Sendable, Hashable, CustomStringConvertible {
    public var weekdays: Set<Int>

    public init(weekdays: Set<Int>) { self.weekdays = weekdays }

    public static let everyDay = DaySet(weekdays: Set(1...7))
    public static let weekdaysOnly = DaySet(weekdays: [2, 3, 4, 5, 6])
    public static let weekends = DaySet(weekdays: [1, 7])

    /// English day names by weekday number (1 = Sunday).
    public static let names = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]

    public func contains(weekday: Int) -> Bool { weekdays.contains(weekday) }

    /// Parses `daily`/`every day`/`all`, `weekdays`, `weekends`, or one day name (`mon`, `monday`).
    /// Lists are given as YAML sequences and parsed item by item.
    public init?(_ text: String) {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        switch t {
        case "daily", "every day", "everyday", "all": self = .everyDay
        case "weekdays": self = .weekdaysOnly
        case "weekends", "weekend": self = .weekends
        default:
            guard let day = DaySet.weekday(named: t) else { return nil }
            self.init(weekdays: [day])
        }
    }

    /// 1...7 for a full or three-letter English day name.
    public static func weekday(named name: String) -> Int? {
        let n = name.lowercased()
        for (i, full) in names.enumerated() where full == n || (n.count >= 3 && full.hasPrefix(n)) {
            return i + 1
        }
        return nil
    }

    public var description: String {
        if self == .everyDay { return "every day" }
        if self == .weekdaysOnly { return "weekdays" }
        if self == .weekends { return "weekends" }
        // Monday-first listing reads naturally.
        let order = [2, 3, 4, 5, 6, 7, 1]
        return order.filter { weekdays.contains($0) }.map { String(DaySet.names[$0 - 1].prefix(3)).capitalized }
            .joined(separator: ", ")
    }
}

