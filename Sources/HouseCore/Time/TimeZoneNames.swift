import Foundation
import Synchronization

/// The names people in a zone know its times by ("BST", "CEST"), read from the footer of the
/// system's tz database file (TZif version 2 and later end with the zone's POSIX TZ rule,
/// `GMT0BST,M3.5.0/1,M10.5.0`). Foundation on Linux names a summer time "GMT+1" instead.
public struct TimeZoneNames: Sendable, Equatable {
    /// The standard time's name ("GMT", "CET").
    public var standard: String
    /// The daylight-saving time's name ("BST", "CEST"), when the zone has one.
    public var daylight: String?

    public init(standard: String, daylight: String? = nil) {
        self.standard = standard
        self.daylight = daylight
    }

    /// The names in a POSIX TZ rule (`CET-1CEST,M3.5.0,M10.5.0/3`, `<+03>-3`); nil when it has none.
    public init?(rule: String) {
        var rest = Substring(rule)
        guard let standard = Self.name(&rest) else { return nil }
        // The offset: [+-]hh[:mm[:ss]].
        rest = rest.drop { "+-0123456789:".contains($0) }
        self.init(standard: standard, daylight: Self.name(&rest))
    }

    /// A name at the start of `text` (letters, or anything between `<` and `>`), consumed.
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

    /// The names of the zone `identifier` from the tz database (`$TZDIR`, else
    /// /usr/share/zoneinfo); nil when its file cannot be read or has no rule. Read once per zone.
    public static func system(_ identifier: String) -> TimeZoneNames? {
        if let known = cache.withLock({ $0[identifier] }) { return known }
        let directory = ProcessInfo.processInfo.environment["TZDIR"] ?? "/usr/share/zoneinfo"
        var names: TimeZoneNames? = nil
        if !identifier.contains(".."), let data = FileManager.default.contents(atPath: directory + "/" + identifier) {
            names = footer(Array(data)).flatMap(TimeZoneNames.init(rule:))
        }
        cache.withLock { $0[identifier] = .some(names) }
        return names
    }

    /// The POSIX TZ rule at the end of a TZif file: the text between the last two newlines.
    static func footer(_ bytes: [UInt8]) -> String? {
        guard bytes.starts(with: Array("TZif".utf8)), bytes.last == 0x0A else { return nil }
        let body = bytes.dropLast()
        guard let start = body.lastIndex(of: 0x0A) else { return nil }
        return String(decoding: body[(start + 1)...], as: UTF8.self)
    }

    private static let cache = Mutex<[String: TimeZoneNames?]>([:])
}

extension TimeZone {
    /// The zone's name at `date` as people there know it: "BST" in a London summer, "CET" in a
    /// Berlin winter (from the tz database; Foundation's own abbreviation where it has no rule).
    public func localName(for date: Date) -> String {
        if let names = TimeZoneNames.system(identifier) {
            return isDaylightSavingTime(for: date) ? names.daylight ?? names.standard : names.standard
        }
        return abbreviation(for: date) ?? identifier
    }
}
