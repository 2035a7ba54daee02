import Foundation
import GRDB
import HouseCore

extension StateStore {
    /// The sources whose commands are people's own (a routine's or a rule's are the house's).
    public static let peopleSources: [IntentSource] = [.cli, .mqtt, .web]

    /// What people did from `since` on, oldest first, as the JSON lines `housectl suggestions
    /// --from-history` reads: one habit event a line, its time and what it did
    /// (`{"time":"2026-03-02T06:47:12+00:00","action":"on","device":"kitchen-light"}`), from the
    /// history's `did` of the commands carried out from `sources`.
    public func habitLines(since: Date, sources: [IntentSource] = StateStore.peopleSources) throws(DaemonError) -> [String] {
        let names = sources.map(\.rawValue)
        let rows: [(Double, String)] = try read { db in
            try Row.fetchAll(db, sql: "SELECT at, did FROM history WHERE at >= ? AND did IS NOT NULL AND source IN (\(names.map { _ in "?" }.joined(separator: ","))) ORDER BY seq",
                             arguments: StatementArguments([since.timeIntervalSince1970] as [any DatabaseValueConvertible] + names))
                .map { ($0["at"], $0["did"]) }
        }
        var lines: [String] = []
        for (at, did) in rows {
            let time = Self.habitTime(Date(timeIntervalSince1970: at))
            // `did` is a JSON array of objects: each becomes a line with the time first.
            guard did.hasPrefix("[{"), did.hasSuffix("}]") else { continue }
            for object in did.dropFirst(2).dropLast(2).components(separatedBy: "},{") {
                lines.append("{\"time\":\"\(time)\",\(object)}")
            }
        }
        return lines
    }

    /// What people did, all of it, as the lines `HabitHistory` reads, named after this database.
    public func habitLines() throws(DaemonError) -> HabitLines {
        HabitLines(text: try habitLines(since: .distantPast).joined(separator: "\n"), source: path)
    }

    /// `2026-03-02T06:47:12+00:00`: ISO 8601 in UTC, to the second.
    static func habitTime(_ date: Date) -> String {
        let iso = WallInstant(date).iso8601UTC  // 2026-03-02T06:47:12.000Z
        return String(iso.prefix(19)) + "+00:00"
    }
}
