import Foundation
import GRDB
import HouseCore
import HouseMQTT
import Logging
import Signals
import Synchronization

/// The daemon's one SQLite file (GRDB): relay states for `power_on: restore`, the current mode and
/// its expiry, the donation history with a retention period, and recently seen command ids.
///
/// WAL mode with `synchronous = NORMAL`. With `grouped` (the daemon), writes are queued and
/// committed together by `flushPending()`: the command bus commits what a batch of commands wrote
/// before it answers them (group commit), and `StateRecorderService` commits what else was
/// written (relay events) within 100 ms, and a last time at shutdown. A burst of commands costs
/// one commit rather than several fsyncs each: the SD card of a Pi lives longer. The trade: WAL
/// with `synchronous = NORMAL` syncs at checkpoints only, so a power cut may lose the last
/// moments of history and states; a killed process loses nothing it acknowledged. Every read
/// flushes first, so this process always reads what it wrote.
///
/// Commits run on one thread of their own (`commit(then:)`), in the order they were asked for: a
/// commit, and a WAL checkpoint's sync within it, never blocks a thread of the concurrency pool,
/// so a command's state goes out while the previous command's history is being written.
public final class StateStore: Sendable {
    /// Where the file lives.
    public let path: String
    private let pool: DatabasePool
    /// Whether writes wait for `flushPending()` instead of each committing at once.
    public let grouped: Bool
    private let pending = Mutex(Pending())
    /// Held for a whole flush (taking the queued writes and committing them), so that a read's
    /// flush waits for a commit in progress elsewhere instead of reading before it; and for a
    /// write of its own, which waits for the commit anyway (the database's one writer).
    private let flushing = NSLock()
    private let counters = Mutex(Statistics())
    /// The thread the grouped commits run on.
    private let committer = BlockingWorker(name: "housectl-commit")
    /// Signalled when a write is queued or the store stops taking writes.
    private let writesQueued = WakeSignal()
    /// Energy edges waiting for `flushEnergyEdges()`.
    private let energyEdgeBuffer = Mutex<[EnergyEdge]>([])

    /// A write waiting for the grouped commit. One that writes many rows calls `between` after
    /// each (the committer gives its CPU up there now and then: a burst's 256 energy edges are one
    /// write).
    typealias Write = @Sendable (_ db: Database, _ between: () -> Void) throws -> Void

    /// Writes waiting for the next commit.
    private struct Pending {
        var writes: [Write] = []
        /// The latest `saveLastActive` (seconds since 1970), written once with the next commit.
        var lastActive: Double?
        /// Each relay's state to record with the next commit: one row write per relay however
        /// many edges the commit holds (a burst of 128 commands on one light wrote 128).
        var relayStates: [DeviceID: RelayStateWrite] = [:]
        /// History records, in order (one per command: written with multi-row statements).
        var history: [HistoryRecord] = []
        var stopped = false

        var isEmpty: Bool { writes.isEmpty && lastActive == nil && relayStates.isEmpty && history.isEmpty }
    }

    /// A relay's edges since the last commit, as the one row write they come to: the last state,
    /// since when it holds (the first edge of the last run of that state), and whether an edge
    /// to another state came before that run. With one, the row takes the state and instant as
    /// they are; without, it changes only where the recorded state differs (the run repeats it).
    /// Either way the row ends as writing every edge in order would leave it.
    struct RelayStateWrite: Equatable {
        var state: DeviceState
        var since: Double
        var changedBefore = false

        /// The write after one more edge, to `state` at `at`.
        mutating func add(_ state: DeviceState, at: Double) {
            guard state != self.state else { return }
            self = RelayStateWrite(state: state, since: at, changedBefore: true)
        }

        func write(device: DeviceID, in db: Database) throws {
            try db.run(
                changedBefore ? StateStore.relayStateSQL : StateStore.relayStateIfChangedSQL,
                [.text(device.rawValue), .text(state.rawValue), .real(since)])
        }
    }

    static let relayStateSQL = "INSERT INTO relay_state(device, state, changed_at) VALUES (?, ?, ?) ON CONFLICT(device) DO UPDATE SET state = excluded.state, changed_at = excluded.changed_at"
    static let relayStateIfChangedSQL = relayStateSQL + " WHERE relay_state.state != excluded.state"

    /// What the store has done, for the benchmarks: transactions committed and writes in them.
    public struct Statistics: Sendable, Equatable {
        public var commits = 0
        public var writes = 0
    }

    public var statistics: Statistics { counters.withLock { $0 } }

    /// Opens (creating if needed) the database at `path`, creating its directory too.
    public init(path: String, grouped: Bool = false) throws(DaemonError) {
        self.path = path
        self.grouped = grouped
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
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // The store appends history and reads a little of it back: a small page cache per
            // connection (SQLite's default is 2 MB each) keeps the daemon's memory down.
            try db.execute(sql: "PRAGMA cache_size = -\(Self.pageCacheKiB)")
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
        m.registerMigration("v2-routine-runs") { db in
            // Routine runs planned (with their drawn delay) and done: see `RoutineRunRecord`.
            try db.create(table: "routine_run") { t in
                t.column("routine_id", .text).notNull()
                t.column("nominal", .integer).notNull()
                t.column("day", .integer).notNull()
                t.column("due", .double).notNull()
                t.column("done_at", .double)
                t.primaryKey(["routine_id", "nominal"])
            }
        }
        m.registerMigration("v3-energy-edges") { db in
            // When each metered device started and stopped using energy: see `EnergyEdge`.
            try db.create(table: "energy_edge") { t in
                t.column("device", .text).notNull()
                t.column("at", .double).notNull().indexed()
                t.column("is_on", .boolean).notNull()
            }
        }
        m.registerMigration("v4-history-did") { db in
            // What a command carried out did (`HistoryRecord.did`): what habits are found from.
            try db.alter(table: "history") { t in t.add(column: "did", .text) }
        }
        return m
    }

    /// Each connection's SQLite page cache, in KiB.
    static let pageCacheKiB = 256

    // MARK: Energy

    /// How long energy edges are kept: the longest energy query ("this week") and a margin.
    public static let energyKept: Duration = .seconds(35 * 24 * 3600)

    /// How many buffered energy edges go to the next grouped commit without waiting for the minute.
    static let energyEdgeBatch = 256

    /// Keeps a metered device's edge for the next `flushEnergyEdges()`: a write of its own per
    /// command, even grouped, doubled the 99th percentile of a command (row 1 of the benchmarks).
    /// Under a burst, every `energyEdgeBatch` edges join the next grouped commit, so the buffer
    /// stays small whatever the rate.
    public func bufferEnergyEdge(_ edge: EnergyEdge) {
        let batch = energyEdgeBuffer.withLock { buffer -> [EnergyEdge]? in
            buffer.append(edge)
            guard grouped, buffer.count >= Self.energyEdgeBatch else { return nil }
            defer { buffer = [] }
            return buffer
        }
        if let batch { queue(Self.insert(batch)) }
    }

    /// Writes the buffered energy edges (grouped with the next commit): once a minute and at
    /// shutdown, so a power cut forgets at most the last minute of on-times.
    public func flushEnergyEdges() throws(DaemonError) {
        let edges = energyEdgeBuffer.withLock { buffer in
            defer { buffer = [] }
            return buffer
        }
        guard !edges.isEmpty else { return }
        try enqueue(Self.insert(edges))
    }

    private static func insert(_ edges: [EnergyEdge]) -> Write {
        { db, between in
            try db.insert(into: "energy_edge(device, at, is_on)", columns: 3, edges, values: { edge, values in
                values.append(.text(edge.device.rawValue))
                values.append(.real(edge.at.date.timeIntervalSince1970))
                values.append(.bool(edge.on))
            }, between: between)
        }
    }

    /// The energy edges since `start`, oldest first; older ones are deleted.
    public func energyEdges(since start: Date) throws(DaemonError) -> [EnergyEdge] {
        let cutoff = start.timeIntervalSince1970
        try write { db in try db.execute(sql: "DELETE FROM energy_edge WHERE at < ?", arguments: [cutoff]) }
        return try read { db in
            try Row.fetchAll(db, sql: "SELECT device, at, is_on FROM energy_edge WHERE at >= ? ORDER BY at, rowid", arguments: [cutoff]).map {
                EnergyEdge(device: DeviceID($0["device"] as String), on: $0["is_on"] as Bool,
                           at: WallInstant(Date(timeIntervalSince1970: $0["at"] as Double)))
            }
        }
    }

    // MARK: Relays

    /// Records a relay's state (after the edge was made; the bank's observer saves every edge,
    /// before the command that made it is answered). Saving the state already recorded changes
    /// no row.
    public func saveRelayState(device: DeviceID, state: DeviceState, at date: Date) throws(DaemonError) {
        let at = date.timeIntervalSince1970
        guard grouped else {
            return try enqueue { db, _ in try RelayStateWrite(state: state, since: at).write(device: device, in: db) }
        }
        pend { p in
            if p.relayStates[device]?.add(state, at: at) == nil { p.relayStates[device] = RelayStateWrite(state: state, since: at) }
        }
    }

    /// The last recorded state of every relay, with when it took that state.
    public func relayStatesSince() throws(DaemonError) -> [DeviceID: (state: DeviceState, since: Date)] {
        try read { db in
            var out: [DeviceID: (state: DeviceState, since: Date)] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT device, state, changed_at FROM relay_state") {
                if let s = DeviceState(rawValue: row["state"]) {
                    out[DeviceID(row["device"] as String)] = (s, Date(timeIntervalSince1970: row["changed_at"]))
                }
            }
            return out
        }
    }

    /// The last recorded state of every relay.
    public func relayStates() throws(DaemonError) -> [DeviceID: DeviceState] {
        try relayStatesSince().mapValues(\.state)
    }

    // MARK: Mode

    /// Records the house's mode state (modes per room, temporary mode and what it reverts to).
    public func saveModes(_ snapshot: ModeSnapshot, at date: Date) throws(DaemonError) {
        let json: String
        do {
            json = try SortedJSONEncoder().encode(snapshot)
        } catch {
            throw .database(path: path, reason: "cannot encode the mode state: \(error)")
        }
        try enqueue { db, _ in
            try db.run(
                "INSERT INTO mode_state(id, snapshot, changed_at) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET snapshot = excluded.snapshot, changed_at = excluded.changed_at",
                [.text(json), .real(date.timeIntervalSince1970)])
        }
    }

    /// The persisted mode state, nil when none was ever saved (or it cannot be read).
    public func modes() throws(DaemonError) -> ModeSnapshot? {
        let json: String? = try read { db in try String.fetchOne(db, sql: "SELECT snapshot FROM mode_state WHERE id = 1") }
        guard let json else { return nil }
        return try? JSONDecoder().decode(ModeSnapshot.self, from: Data(json.utf8))
    }

    // MARK: Meta

    /// When the daemon was last known to run (for the routines' catch-up).
    public func lastActive() throws(DaemonError) -> Date? {
        let v = try meta("last_active")
        return v.flatMap(Double.init).map { Date(timeIntervalSince1970: $0) }
    }

    /// The kernel's boot id recorded by the last run (`/proc/sys/kernel/random/boot_id`).
    public func bootID() throws(DaemonError) -> String? {
        try meta("boot_id")
    }

    public func saveBootID(_ id: String) throws(DaemonError) {
        try saveMeta("boot_id", id)
    }

    /// The Home Assistant discovery topics the last run published (to clear those the
    /// configuration no longer produces, even when the broker forgot them).
    public func discoveryTopics() throws(DaemonError) -> [String] {
        try meta("discovery_topics").map { $0.split(separator: "\n").map(String.init) } ?? []
    }

    public func saveDiscoveryTopics(_ topics: [String]) throws(DaemonError) {
        try saveMeta("discovery_topics", topics.joined(separator: "\n"))
    }

    /// Records `date` as the last instant the daemon was known to run. Grouped, only the latest
    /// one is written, once per commit: a burst of commands does not write it once per command.
    public func saveLastActive(_ date: Date) throws(DaemonError) {
        let seconds = date.timeIntervalSince1970
        guard grouped else { return try saveMeta("last_active", String(seconds)) }
        pend { $0.lastActive = seconds }
    }

    /// Where a cover stopped last (0-100), restored at the next start as an assumed position.
    public func saveCoverPosition(_ cover: DeviceID, _ position: Double) throws(DaemonError) {
        try saveMeta(Self.coverKeyPrefix + cover.rawValue, String(position))
    }

    /// Every cover's last recorded position.
    public func coverPositions() throws(DaemonError) -> [DeviceID: Double] {
        let rows: [(String, String)] = try read { db in
            try Row.fetchAll(db, sql: "SELECT key, value FROM meta WHERE key LIKE ?", arguments: [Self.coverKeyPrefix + "%"])
                .map { ($0[0], $0[1]) }
        }
        var out: [DeviceID: Double] = [:]
        for (key, value) in rows {
            if let p = Double(value) { out[DeviceID(String(key.dropFirst(Self.coverKeyPrefix.count)))] = p }
        }
        return out
    }

    private static let coverKeyPrefix = "cover_position."

    /// One value of the `meta` table.
    private func meta(_ key: String) throws(DaemonError) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]) }
    }

    /// Sets one value of the `meta` table (written with the next grouped commit).
    private func saveMeta(_ key: String, _ value: String) throws(DaemonError) {
        try enqueue { db, _ in try Self.writeMeta(key, value, in: db) }
    }

    private static func writeMeta(_ key: String, _ value: String, in db: Database) throws {
        try db.run("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", [.text(key), .text(value)])
    }

    // MARK: History

    /// One handled intent, as stored (`HouseCore.HistoryRecord`).
    public typealias HistoryRecord = HouseCore.HistoryRecord

    public func appendHistory(_ record: HistoryRecord) throws(DaemonError) {
        guard grouped else {
            try enqueue { db, _ in try Self.insert([record], in: db) }
            return
        }
        pend { $0.history.append(record) }
    }

    private static func insert(_ records: [HistoryRecord], in db: Database, between: () -> Void = {}) throws {
        try db.insert(into: "history(at, source, kind, summary, outcome, dialog, details, request_id, did)", columns: 9, records, values: { r, values in
            values.append(.real(r.at.timeIntervalSince1970))
            values.append(.text(r.source))
            values.append(.text(r.kind))
            values.append(.text(r.summary))
            values.append(.text(r.outcome))
            values.append(.text(r.dialog))
            values.append(.text(r.details))
            values.append(.text(r.requestID))
            values.append(.text(r.did))
        }, between: between)
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
                    details: row["details"], requestID: row["request_id"], did: row["did"])
            }
        }
    }

    /// Deletes history, seen command ids and routine runs older than `date`; returns how many
    /// history rows went.
    @discardableResult
    public func prune(before date: Date) throws(DaemonError) -> Int {
        try write { db in
            try db.execute(sql: "DELETE FROM history WHERE at < ?", arguments: [date.timeIntervalSince1970])
            let n = db.changesCount
            try db.execute(sql: "DELETE FROM seen_command WHERE at < ?", arguments: [date.timeIntervalSince1970])
            try db.execute(sql: "DELETE FROM routine_run WHERE nominal < ?", arguments: [Int64(date.timeIntervalSince1970)])
            return n
        }
    }

    // MARK: Command ids

    /// Records that request `id` was carried out at `date` (a repeat within the window is not
    /// carried out again, across restarts too).
    public func saveCommandSeen(_ id: String, at date: Date) throws(DaemonError) {
        let at = date.timeIntervalSince1970
        try enqueue { db, _ in
            try db.run(
                "INSERT INTO seen_command(id, at) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET at = excluded.at",
                [.text(id), .real(at)])
        }
    }

    /// The request ids carried out since `start`, with when.
    public func seenCommands(since start: Date) throws(DaemonError) -> [String: Date] {
        try read { db in
            var out: [String: Date] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, at FROM seen_command WHERE at >= ?", arguments: [start.timeIntervalSince1970]) {
                out[row["id"] as String] = Date(timeIntervalSince1970: row["at"] as Double)
            }
            return out
        }
    }

    // MARK: Health

    /// `PRAGMA integrity_check`: `ok` for a sound database.
    public func integrityCheck() throws(DaemonError) -> String {
        try read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ") }
    }

    /// Closes the database, committing what waits first.
    public func close() throws(DaemonError) {
        stopWaiting()
        try flushEnergyEdges()
        try flushPending()
        do { try pool.close() } catch { throw .database(path: path, reason: String(describing: error)) }
    }

    // MARK: A command's records

    /// Queues `record` (what a command did: `Effects.Record`) for the next grouped commit.
    public func keep(_ record: Effects.Record) throws(DaemonError) {
        switch record {
        case .history(let entry): try appendHistory(entry)
        case .relayState(let device, let state, let at): try saveRelayState(device: device, state: state, at: at)
        case .modes(let snapshot, let at): try saveModes(snapshot, at: at)
        case .coverPosition(let cover, let position): try saveCoverPosition(cover, position)
        case .runDone(let run, let at): try markRunDone(run, at: at)
        case .commandSeen(let id, let at): try saveCommandSeen(id, at: at)
        case .energyEdge(let edge): bufferEnergyEdge(edge)
        case .lastActive(let at): try saveLastActive(at)
        case .checkpoint(let at):
            try flushEnergyEdges()
            try saveLastActive(at)
        }
    }

    /// Commits everything queued so far on the commit thread, then calls `then` there; a failed
    /// commit is logged (its writes are lost, later ones go on).
    public func commit(logger: Logger, then: @escaping @Sendable () -> Void) {
        committer.submit { [self] in
            do { try flushPending() } catch { logger.error("\(error)") }
            then()
        }
    }

    /// `commit(logger:then:)`, returning once it is on disk (and every commit asked for before it).
    public func commit(logger: Logger) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            commit(logger: logger) { done.resume() }
        }
    }

    /// Ends the commit thread once the commits asked for are done.
    public func stopCommitting() {
        committer.stop()
    }

    // MARK: Grouped writes

    /// Commits every queued write in one transaction; nothing when none waits. On an error the
    /// queued writes are dropped (the error says so); later writes go on. `between` is called
    /// after each write.
    public func flushPending(between: () -> Void = {}) throws(DaemonError) {
        flushing.lock()
        defer { flushing.unlock() }
        let (writes, lastActive, relayStates, history) = pending.withLock { p in
            defer {
                p.writes.removeAll(keepingCapacity: true)
                p.lastActive = nil
                p.relayStates.removeAll(keepingCapacity: true)
                p.history.removeAll(keepingCapacity: true)
            }
            return (p.writes, p.lastActive, p.relayStates, p.history)
        }
        let count = writes.count + (lastActive == nil ? 0 : 1) + relayStates.count + history.count
        guard count > 0 else { return }
        do {
            try pool.write { db in
                try Self.insert(history, in: db, between: between)
                for write in writes {
                    try write(db, between)
                    between()
                }
                for (device, write) in relayStates {
                    try write.write(device: device, in: db)
                    between()
                }
                if let lastActive { try Self.writeMeta("last_active", String(lastActive), in: db) }
            }
        } catch {
            throw .database(path: path, reason: "\(count) writes lost: \(error)")
        }
        counters.withLock {
            $0.commits += 1
            $0.writes += count
        }
    }

    /// Waits until a write is queued (true), or the store stops taking writes or the waiting
    /// task is cancelled (false).
    public func waitForWrites() async -> Bool {
        while true {
            let now: Bool? = pending.withLock { p in
                if !p.isEmpty { return true }
                if p.stopped { return false }
                return nil
            }
            if let now { return now }
            if Task.isCancelled { return false }
            await writesQueued.wait()
        }
    }

    /// Wakes `waitForWrites()` for good: the recorder makes its last commit.
    public func stopWaiting() {
        pending.withLock { $0.stopped = true }
        writesQueued.signal()
    }

    /// Queues `body` for the next grouped commit, or commits it at once when not `grouped`. A
    /// write of many rows calls its `between` after each; one of a single row leaves it to the commit.
    func enqueue(_ body: @escaping Write) throws(DaemonError) {
        guard grouped else {
            try write { db in try body(db) {} }
            counters.withLock {
                $0.commits += 1
                $0.writes += 1
            }
            return
        }
        queue(body)
    }

    /// Changes what waits for the next grouped commit, and wakes the recorder when nothing waited.
    private func pend(_ change: (inout Pending) -> Void) {
        let wasEmpty = withPending { p in
            defer { change(&p) }
            return p.isEmpty
        }
        if wasEmpty { writesQueued.signal() }
    }

    private func withPending<T: Sendable>(_ body: (inout Pending) -> T) -> T {
        pending.withLock { body(&$0) }
    }

    /// Queues `body` for the next grouped commit.
    private func queue(_ body: @escaping Write) {
        pend { $0.writes.append(body) }
    }

    // MARK: Plumbing

    private func write<T>(_ body: (Database) throws -> T) throws(DaemonError) -> T {
        // After any commit in progress (which holds the database's writer meanwhile).
        flushing.lock()
        defer { flushing.unlock() }
        do { return try pool.write(body) } catch { throw .database(path: path, reason: String(describing: error)) }
    }

    func read<T>(flushing: Bool = true, _ body: (Database) throws -> T) throws(DaemonError) -> T {
        // This process reads what it wrote, committed or not yet.
        if grouped && flushing { try flushPending() }
        do { return try pool.read(body) } catch { throw .database(path: path, reason: String(describing: error)) }
    }
}

