import Foundation
import Synchronization

/// A time zone of the tz database, read from the system's zone files (`$TZDIR`, else
/// /usr/share/zoneinfo): the house's zone, as `house.time_zone` names it.
///
/// It answers what housectl asks of a zone: the offset from UTC at an instant, the next change
/// of that offset, and the name people there know the time by ("BST" in a London summer, "CET" in
/// a Berlin winter; Foundation on Linux says "GMT+1"). Past and recorded changes come from the
/// file's transition table, later ones from the POSIX TZ rule at its end (`PosixZoneRule`).
///
/// Foundation's `TimeZone` on Linux is ICU's: the first zone made reads ICU's zone tables, about
/// 1.2 MB of the daemon's resident memory, for the same answers as these 4 kB files.
///
/// Two zones are equal when they have the same identifier (each identifier is read once).
public struct HouseZone: Sendable, Hashable, CustomStringConvertible {
    /// The tz database name ("Europe/London", "UTC").
    public let identifier: String
    /// The instants (seconds since 1970, UTC) at which the local time type changes, ascending.
    let transitions: [Int64]
    /// The local time type from each transition on (an index into `types`).
    let transitionTypes: [UInt8]
    /// The local time types; the first applies before the first transition.
    let types: [LocalTimeType]
    /// The zone's rule after the last transition (from the file's footer).
    let rule: PosixZoneRule?

    /// One kind of local time: its offset from UTC, whether it is summer time, and its name.
    struct LocalTimeType: Sendable, Hashable {
        /// Seconds east of UTC.
        var offset: Int
        var isDaylight: Bool
        var name: String
    }

    /// Coordinated Universal Time.
    public static let utc = HouseZone(identifier: "UTC", transitions: [], transitionTypes: [],
                                      types: [LocalTimeType(offset: 0, isDaylight: false, name: "UTC")], rule: nil)

    init(identifier: String, transitions: [Int64], transitionTypes: [UInt8], types: [LocalTimeType], rule: PosixZoneRule?) {
        self.identifier = identifier
        self.transitions = transitions
        self.transitionTypes = transitionTypes
        self.types = types
        self.rule = rule
    }

    /// The zone `identifier` of the tz database; nil when no zone file of that name can be read.
    /// "UTC" and "GMT" are known without one.
    public init?(identifier: String) {
        if identifier == "UTC" || identifier == "GMT" || identifier == "Etc/UTC" {
            self = .utc
            return
        }
        guard let zone = Self.system(identifier) else { return nil }
        self = zone
    }

    /// Seconds east of UTC at `date`.
    public func secondsFromGMT(for date: Date) -> Int {
        localTimeType(at: Self.seconds(date)).offset
    }

    /// Whether `date` falls in summer (daylight-saving) time.
    public func isDaylightSavingTime(for date: Date) -> Bool {
        localTimeType(at: Self.seconds(date)).isDaylight
    }

    /// The zone's name at `date` as people there know it: "BST" in a London summer, "CET" in a
    /// Berlin winter, "+03" where the tz database has no letters for it.
    public func localName(for date: Date) -> String {
        localTimeType(at: Self.seconds(date)).name
    }

    /// The first instant after `date` at which the offset from UTC changes; nil when it never does.
    public func nextTransition(after date: Date) -> Date? {
        let t = Self.seconds(date)
        let now = localTimeType(at: t).offset
        var i = firstTransition(after: t)
        while i < transitions.count {
            if types[Int(transitionTypes[i])].offset != now { return Date(timeIntervalSince1970: TimeInterval(transitions[i])) }
            i += 1
        }
        guard let rule else { return nil }
        var from = max(t, transitions.last ?? t)
        // A rule's change can keep the offset (a zone whose names alone change); look a little further.
        for _ in 0..<4 {
            guard let next = rule.nextTransition(after: from) else { return nil }
            if rule.localTimeType(at: next).offset != now { return Date(timeIntervalSince1970: TimeInterval(next)) }
            from = next
        }
        return nil
    }

    public var description: String { identifier }

    public static func == (a: HouseZone, b: HouseZone) -> Bool { a.identifier == b.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }

    /// The local time type at `t` (seconds since 1970, UTC).
    func localTimeType(at t: Int64) -> LocalTimeType {
        if let rule, transitions.last.map({ t >= $0 }) ?? true { return rule.localTimeType(at: t) }
        let i = firstTransition(after: t)
        return i == 0 ? types[0] : types[Int(transitionTypes[i - 1])]
    }

    /// The index of the first transition after `t` (`transitions.count` when none is).
    private func firstTransition(after t: Int64) -> Int {
        var lo = 0, hi = transitions.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if transitions[mid] <= t { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    private static func seconds(_ date: Date) -> Int64 {
        let s = date.timeIntervalSince1970.rounded(.down)
        return s.isFinite ? Int64(max(min(s, 1e17), -1e17)) : 0
    }

    // MARK: The system's zone files

    /// The zone `identifier` from the tz database, read and parsed once per identifier.
    static func system(_ identifier: String) -> HouseZone? {
        if let known = cache.withLock({ $0[identifier] }) { return known }
        var zone: HouseZone? = nil
        if isSafe(identifier) {
            let directory = ProcessInfo.processInfo.environment["TZDIR"] ?? "/usr/share/zoneinfo"
            if let data = FileManager.default.contents(atPath: directory + "/" + identifier) {
                zone = HouseZone(identifier: identifier, tzif: Array(data))
            }
        }
        cache.withLock { $0[identifier] = .some(zone) }
        return zone
    }

    /// A zone name cannot leave the zone directory: letters, digits, `_+-` and inner `/`.
    private static func isSafe(_ identifier: String) -> Bool {
        !identifier.isEmpty && !identifier.hasPrefix("/") && !identifier.contains("..")
            && identifier.utf8.allSatisfy { $0 < 0x80 && (Character(Unicode.Scalar($0)).isLetter || Character(Unicode.Scalar($0)).isNumber || "_+-/".utf8.contains($0)) }
    }

    private static let cache = Mutex<[String: HouseZone?]>([:])
}
