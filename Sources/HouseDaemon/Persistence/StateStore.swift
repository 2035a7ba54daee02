import Foundation
import GRDB
import HouseCore

/// The daemon's one SQLite file (GRDB): relay states for `power_on: restore`, the current mode and
/// its expiry, the donation history with a retention period, and recently seen command ids.
///
/// Writes are synchronous with `synchronous = FULL` in WAL mode, so a state is on disk before the
/// command that caused it is acknowledged: a crash loses nothing that was acknowledged.
public final class StateStore: Sendable {
    /// Where the file lives.
    public let path: String
    private let pool: DatabasePool

    /// Opens (creating if needed) the database at `path`, creating its directory too.
    public init(path: String) throws(DaemonError) {
        self.path = path
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw .database(path: path, reason: "cannot create directory \(directory): \(error.localizedDescription)")
            }
        }
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        configuration.busyMode = .timeout(5)
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
        } catch {
            throw .database(path: path, reason: String(describing: error))
        }
    }

    private static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.create(table: "relay_state") { t in
                t.primaryKey("device", .text)
                t.column("state", .text).notNull()
                t.column("changed_at", .double).notNull()
            }
            try db.create(table: "mode_state") { t in
                t.primaryKey("id", .integer)
                t.column("snapshot", .text).notNull()
                t.column("changed_at", .double).notNull()
            }
            try db.create(table: "meta") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
            try db.create(table: "history") { t in
                t.autoIncrementedPrimaryKey("seq")
                t.column("at", .double).notNull().indexed()
                t.column("source", .text).notNull()
                t.column("kind", .text).notNull()
                t.column("summary", .text).notNull()
                t.column("outcome", .text).notNull()
                t.column("dialog", .text).notNull()
                t.column("details", .text)
                t.column("request_id", .text)
            }
            try db.create(table: "seen_command") { t in
                t.primaryKey("id", .text)
                t.column("at", .double).notNull().indexed()
            }
        }
        return m
    }

    // MARK: Relays

    /// Records a relay's state (after the edge was made). Saving the state already recorded writes
    /// nothing (no page changes, so no sync): the command path saves before it answers and the
    /// relay events save every edge, and the second of the two costs nothing.
    public func saveRelayState(device: String, state: DeviceState, at date: Date) throws(DaemonError) {
        try write { db in
            try db.execute(
                sql: "INSERT INTO relay_state(device, state, changed_at) VALUES (?, ?, ?) ON CONFLICT(device) DO UPDATE SET state = excluded.state, changed_at = excluded.changed_at WHERE relay_state.state != excluded.state",
                arguments: [device, state.rawValue, date.timeIntervalSince1970])
        }
    }

    /// The last recorded state of every relay.
    public func relayStates() throws(DaemonError) -> [String: DeviceState] {
        try read { db in
            var out: [String: DeviceState] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT device, state FROM relay_state") {
                if let s = DeviceState(rawValue: row["state"]) { out[row["device"]] = s }
            }
            return out
        }
    }

    // MARK: Mode

    /// Records the house's mode state (modes per room, temporary mode and what it reverts to).
    public func saveModes(_ snapshot: HouseService.ModeSnapshot, at date: Date) throws(DaemonError) {
        let json: String
        do {
            json = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
        } catch {
            throw .database(path: path, reason: "cannot encode the mode state: \(error)")
        }
        try write { db in
            try db.execute(
                sql: "INSERT INTO mode_state(id, snapshot, changed_at) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET snapshot = excluded.snapshot, changed_at = excluded.changed_at",
                arguments: [json, date.timeIntervalSince1970])
        }
    }

    /// The persisted mode state, nil when none was ever saved (or it cannot be read).
    public func modes() throws(DaemonError) -> HouseService.ModeSnapshot? {
        let json: String? = try read { db in try String.fetchOne(db, sql: "SELECT snapshot FROM mode_state WHERE id = 1") }
        guard let json else { return nil }
        return try? JSONDecoder().decode(HouseService.ModeSnapshot.self, from: Data(json.utf8))
    }

    // MARK: Meta

    /// When the daemon was last known to run (for the routines' catch-up).
    public func lastActive() throws(DaemonError) -> Date? {
        let v: String? = try read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'last_active'") }
        return v.flatMap(Double.init).map { Date(timeIntervalSince1970: $0) }
    }

    public func saveLastActive(_ date: Date) throws(DaemonError) {
        try write { db in
            try db.execute(
                sql: "INSERT INTO meta(key, value) VALUES ('last_active', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [String(date.timeIntervalSince1970)])
        }
    }

    // MARK: History

    /// One handled intent: the donation, as stored.
    public struct HistoryRecord: Sendable, Equatable {
        public var seq: Int64?
        public var at: Date
        public var source: String
        /// `control`, `mode`, `query`, `routine`.
        public var kind: String
        /// What ran, in a few words ("bedroom-light off").
        public var summary: String
        /// `success` or `failure`.
        public var outcome: String
        public var dialog: String
        /// JSON of the resolved parameters.
        public var details: String?
        public var requestID: String?

        public init(seq: Int64? = nil, at: Date, source: String, kind: String, summary: String, outcome: String,
                    dialog: String, details: String? = nil, requestID: String? = nil) {
            self.seq = seq
            self.at = at
            self.source = source
            self.kind = kind
            self.summary = summary
            self.outcome = outcome
            self.dialog = dialog
            self.details = details
            self.requestID = requestID
        }
    }

    @discardableResult
    public func appendHistory(_ record: HistoryRecord) throws(DaemonError) -> Int64 {
        try write { db in
            try db.execute(
                sql: "INSERT INTO history(at, source, kind, summary, outcome, dialog, details, request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                arguments: [record.at.timeIntervalSince1970, record.source, record.kind, record.summary,
                            record.outcome, record.dialog, record.details, record.requestID])
            return db.lastInsertedRowID
        }
    }

    /// History from `since` (all when nil), oldest first, at most `limit` records (the newest ones).
    public func history(since: Date? = nil, limit: Int = 1000) throws(DaemonError) -> [HistoryRecord] {
        try read { db in
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT * FROM (SELECT * FROM history WHERE at >= ? ORDER BY seq DESC LIMIT ?) ORDER BY seq ASC",
                arguments: [since?.timeIntervalSince1970 ?? -Double.greatestFiniteMagnitude, limit])
            return rows.map { row in
                HistoryRecord(
                    seq: row["seq"], at: Date(timeIntervalSince1970: row["at"]), source: row["source"],
                    kind: row["kind"], summary: row["summary"], outcome: row["outcome"], dialog: row["dialog"],
                    details: row["details"], requestID: row["request_id"])
            }
        }
    }

    /// Deletes history and seen command ids older than `date`; returns how many history rows went.
    @discardableResult
    public func prune(before date: Date) throws(DaemonError) -> Int {
        try write { db in
            try db.execute(sql: "DELETE FROM history WHERE at < ?", arguments: [date.timeIntervalSince1970])
            let n = db.changesCount
            try db.execute(sql: "DELETE FROM seen_command WHERE at < ?", arguments: [date.timeIntervalSince1970])
            return n
        }
    }

    // MARK: Command ids

    /// Records `id` as seen at `date`; returns false when it was already seen at or after `since`
    /// (a repeated command within the de-duplication window).
    public func markCommandSeen(_ id: String, at date: Date, windowStart since: Date) throws(DaemonError) -> Bool {
        try write { db in
            if let at = try Double.fetchOne(db, sql: "SELECT at FROM seen_command WHERE id = ?", arguments: [id]),
               at >= since.timeIntervalSince1970 {
                return false
            }
            try db.execute(
                sql: "INSERT INTO seen_command(id, at) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET at = excluded.at",
                arguments: [id, date.timeIntervalSince1970])
            return true
        }
    }

    // MARK: Health

    /// `PRAGMA integrity_check`: `ok` for a sound database.
    public func integrityCheck() throws(DaemonError) -> String {
        try read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ") }
    }

    /// Closes the database.
    public func close() throws(DaemonError) {
        do { try pool.close() } catch { throw .database(path: path, reason: String(describing: error)) }
    }

    // MARK: Plumbing

    private func write<T>(_ body: (Database) throws -> T) throws(DaemonError) -> T {
        do { return try pool.write(body) } catch { throw .database(path: path, reason: String(describing: error)) }
    }

    private func read<T>(_ body: (Database) throws -> T) throws(DaemonError) -> T {
        do { return try pool.read(body) } catch { throw .database(path: path, reason: String(describing: error)) }
    }
}
