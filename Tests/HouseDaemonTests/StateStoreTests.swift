import Foundation
import Testing
import GRDB
import HouseCore
@testable import HouseDaemon

@Suite final class StateStoreTests {
    /// This test's directory (a new instance per test), removed after it.
    let directory = NSTemporaryDirectory() + "housectl-store-\(UUID().uuidString)"
    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func temporaryPath() -> String { directory + "/state.sqlite" }

    /// What people did, as the JSON lines the habit finder reads: a line per event, its time
    /// first; a routine's or a rule's commands, and commands that did nothing, left out.
    @Test func habitLinesAreWhatPeopleDid() throws {
        let store = try StateStore(path: temporaryPath())
        let t0 = Date(timeIntervalSince1970: 1_772_433_232)  // 2026-03-02 06:33:52 UTC
        func add(_ at: Date, _ source: String, _ did: String?) throws {
            try store.appendHistory(.init(at: at, source: source, kind: "control", summary: "-", outcome: "done", dialog: "-", did: did))
        }
        try add(t0, "cli", #"[{"action":"on","device":"kitchen-light"},{"action":"on","device":"hall-light"}]"#)
        try add(t0 + 60, "routine", #"[{"mode":"morning"}]"#)
        try add(t0 + 120, "mqtt", nil)
        try add(t0 + 180, "web", #"[{"mode":"night"}]"#)
        try add(t0 - 86_400, "cli", #"[{"routine":"good-night"}]"#)
        #expect(try store.habitLines(since: t0 - 1) == [
            #"{"time":"2026-03-02T06:33:52+00:00","action":"on","device":"kitchen-light"}"#,
            #"{"time":"2026-03-02T06:33:52+00:00","action":"on","device":"hall-light"}"#,
            #"{"time":"2026-03-02T06:36:52+00:00","mode":"night"}"#,
        ])
        try store.close()
    }

    @Test func relayStatesModeAndHistorySurviveReopen() throws {
        let path = temporaryPath()
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        do {
            let store = try StateStore(path: path)
            try store.saveRelayState(device: "heater", state: .on, at: t0)
            try store.saveRelayState(device: "heater", state: .off, at: t0 + 5)
            try store.saveRelayState(device: "fan", state: .on, at: t0 + 6)
            try store.saveModes(Self.awayUntil(t0 + 7200, since: t0), at: t0)
            try store.saveLastActive(t0 + 9)
            try store.appendHistory(.init(at: t0, source: "cli", kind: "control", summary: "fan on", outcome: "success", dialog: "The fan is on."))
            try store.close()
        }
        let store = try StateStore(path: path)
        #expect(try store.relayStates() == ["heater": .off, "fan": .on])
        #expect(try store.modes() == Self.awayUntil(t0 + 7200, since: t0))
        #expect(try store.lastActive() == t0 + 9)
        let history = try store.history()
        #expect(history.count == 1)
        #expect(history.first?.summary == "fan on")
        #expect(try store.integrityCheck() == "ok")
    }

    /// The kitchen in day mode with away on top until `until`.
    static func awayUntil(_ until: Date, since: Date) -> ModeSnapshot {
        .init(timelines: ["kitchen": ModeTimeline(base: "day", layers: [.init(mode: "away", since: since, until: until)])])
    }

    /// A state file of the version before one timeline per room still restores its modes: the
    /// temporary mode becomes a layer over the mode it reverts to, ending when it was to end.
    @Test func modesOfTheEarlierShapeAreRead() throws {
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let old = #"{"roomModes":{"kitchen":"away","hall":"night"},"revertAt":\#(t0.timeIntervalSinceReferenceDate),"revertRooms":["kitchen"],"previousModes":{"kitchen":"day"}}"#
        let snapshot = try JSONDecoder().decode(ModeSnapshot.self, from: Data(old.utf8))
        #expect(snapshot.roomModes == ["kitchen": "away", "hall": "night"])
        #expect(snapshot.nextExpiry == t0)
        #expect(snapshot.timelines["kitchen"]?.base == "day")
    }

    /// Routine runs: a planned run keeps its first record (its drawn delay), done is kept, and
    /// both survive reopening.
    @Test func routineRunsAreRecordedPlannedThenDone() throws {
        let path = temporaryPath()
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let day = LocalDate(daysSinceEpoch: 20_833)
        let run = ScheduledRun(routineID: "morning", day: day, nominal: t0, due: t0 + 300, window: nil, reason: .scheduled)
        do {
            let store = try StateStore(path: path, grouped: true)
            try store.recordPlannedRuns([run])
            var redrawn = run
            redrawn.due = t0 + 10
            try store.recordPlannedRuns([redrawn])
            #expect(try store.routineRuns() == [RoutineRunRecord(routineID: "morning", day: day, nominal: t0, due: t0 + 300, done: false)])
            let other = ScheduledRun(routineID: "night", day: day, nominal: t0 + 3600, due: t0 + 3600, window: nil, reason: .scheduled)
            try store.markRunDone(other, at: t0 + 3601)
            try store.close()
        }
        let store = try StateStore(path: path)
        let records = try store.routineRuns().sorted { $0.routineID < $1.routineID }
        #expect(records.map(\.done) == [false, true])
        #expect(records.map(\.due) == [t0 + 300, t0 + 3600])
        try store.close()
    }

    /// Grouped (the daemon's store): writes wait for one commit; this process reads them at
    /// once all the same; a seen command id counts before its commit; closing commits the rest.
    @Test func groupedWritesCommitTogetherAndAreReadBeforeTheirCommit() async throws {
        let path = temporaryPath()
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let store = try StateStore(path: path, grouped: true)
        for i in 0..<50 {
            try store.appendHistory(.init(at: t0 + Double(i), source: "mqtt", kind: "control", summary: "x\(i)", outcome: "done", dialog: ""))
            try store.saveRelayState(device: "fan", state: i % 2 == 0 ? .on : .off, at: t0 + Double(i))
        }
        #expect(store.statistics.commits == 0, "nothing committed before the recorder's turn")
        try store.saveCommandSeen("c1", at: t0)
        #expect(await store.waitForWrites(), "writes wait")
        try store.flushPending()
        // 50 history records, the fan's 50 edges as one row write, the seen id.
        #expect(store.statistics == .init(commits: 1, writes: 52), "\(store.statistics)")
        try store.saveLastActive(t0 + 99)
        #expect(try store.lastActive() == t0 + 99, "a read sees what waits")
        try store.saveModes(.init(timelines: ["kitchen": ModeTimeline(base: "night")]), at: t0)
        try store.close()
        let reopened = try StateStore(path: path)
        #expect(try reopened.history().map(\.summary) == (0..<50).map { "x\($0)" }, "in order, across multi-row statements")
        #expect(try reopened.relayStates() == ["fan": .off])
        #expect(try reopened.modes()?.roomModes == ["kitchen": "night"], "closing committed the last writes")
        try reopened.close()
    }

    @Test func aBurstWritesTheLastActiveInstantOncePerCommit() async throws {
        let path = temporaryPath()
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let store = try StateStore(path: path, grouped: true)
        for i in 0..<100 { try store.saveLastActive(t0 + Double(i)) }
        #expect(await store.waitForWrites(), "the instant alone wakes the recorder")
        try store.flushPending()
        #expect(store.statistics == .init(commits: 1, writes: 1), "\(store.statistics)")
        try store.flushPending()
        #expect(store.statistics.commits == 1, "nothing left to commit")
        try store.close()
        let reopened = try StateStore(path: path)
        #expect(try reopened.lastActive() == t0 + 99, "the latest instant")
        try reopened.close()
    }

    /// Energy edges wait for the minute's flush, but a burst's go to the next grouped commit every
    /// `energyEdgeBatch` edges: the buffer does not grow with the burst.
    @Test func aBurstOfEnergyEdgesJoinsTheGroupedCommits() async throws {
        let store = try StateStore(path: temporaryPath(), grouped: true)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let edge = { (i: Int) in EnergyEdge(device: "heater", on: i % 2 == 0, at: WallInstant(t0 + Double(i))) }
        for i in 0..<(StateStore.energyEdgeBatch - 1) { store.bufferEnergyEdge(edge(i)) }
        try store.flushPending()
        #expect(store.statistics.writes == 0, "fewer than a batch wait for the minute")
        store.bufferEnergyEdge(edge(StateStore.energyEdgeBatch - 1))
        #expect(await store.waitForWrites(), "a full batch is queued")
        try store.flushPending()
        #expect(store.statistics == .init(commits: 1, writes: 1), "\(store.statistics)")
        store.bufferEnergyEdge(edge(StateStore.energyEdgeBatch))
        try store.flushEnergyEdges()
        let edges = try store.energyEdges(since: t0)
        #expect(edges.count == StateStore.energyEdgeBatch + 1)
        #expect(edges.last?.at.date == t0 + Double(StateStore.energyEdgeBatch), "the minute's flush writes the rest")
        try store.close()
    }

    @Test func aStoppedRecorderIsNotWaitedFor() async throws {
        let store = try StateStore(path: temporaryPath(), grouped: true)
        store.stopWaiting()
        #expect(await store.waitForWrites() == false)
        try store.close()
    }

    @Test func pruneAndCommandWindow() throws {
        let store = try StateStore(path: temporaryPath())
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        for i in 0..<10 {
            try store.appendHistory(.init(at: t0 + Double(i) * 3600, source: "mqtt", kind: "control", summary: "x\(i)", outcome: "success", dialog: ""))
        }
        #expect(try store.prune(before: t0 + 5 * 3600) == 5)
        #expect(try store.history().map(\.summary) == ["x5", "x6", "x7", "x8", "x9"])
        #expect(try store.history(limit: 2).map(\.summary) == ["x8", "x9"])
        try store.saveCommandSeen("c1", at: t0)
        #expect(try store.seenCommands(since: t0 - 60) == ["c1": t0])
        // Outside the window the same id is a new command.
        #expect(try store.seenCommands(since: t0 + 540).isEmpty)
    }

    /// The writes bind their values straight to SQLite (`Database.run(_:_:)`): every kind comes
    /// back as written (text with quotes, control characters, non-ASCII and nothing at all, nil, doubles),
    /// and what SQLite refuses is an error, not a crash.
    @Test func writesBindEveryValueKindExactly() throws {
        let store = try StateStore(path: temporaryPath())
        let t0 = Date(timeIntervalSince1970: 1_800_000_000.125)
        let texts = ["", "it's \"on\"", "Küche 🔥", "tab\tand\nline", String(repeating: "x", count: 5000)]
        for (i, text) in texts.enumerated() {
            try store.appendHistory(.init(at: t0 + Double(i), source: "mqtt", kind: "control", summary: text, outcome: "success",
                                          dialog: text, details: i % 2 == 0 ? nil : "{\"i\":\(i)}", requestID: i == 1 ? "r-1" : nil))
        }
        let history = try store.history()
        #expect(history.map(\.summary) == texts)
        #expect(history.map(\.dialog) == texts)
        #expect(history.map(\.details) == [nil, "{\"i\":1}", nil, "{\"i\":3}", nil])
        #expect(history.map(\.requestID) == [nil, "r-1", nil, nil, nil])
        #expect(history.map(\.at) == texts.indices.map { t0 + Double($0) })
        try store.saveRelayState(device: "fan", state: .on, at: t0)
        #expect(try store.relayStatesSince()["fan"].map { [$0.state == .on, $0.since == t0] } == [true, true])
        store.bufferEnergyEdge(.init(device: "fan", on: true, at: WallInstant(t0)))
        try store.flushEnergyEdges()
        #expect(try store.energyEdges(since: t0 - 1).map(\.on) == [true])
        try DatabaseQueue().write { db in
            #expect(throws: DatabaseError.self) { try db.run("INSERT INTO nowhere(x) VALUES (?)", [.integer(1)]) }
            try db.run("CREATE TABLE kinds(t TEXT, r REAL, i INTEGER, n)", [])
            try db.run("INSERT INTO kinds VALUES (?, ?, ?, ?)", [.text("t"), .real(0.5), .integer(Int64.min), .null])
            #expect(throws: DatabaseError.self) { try db.run("INSERT INTO kinds VALUES (?, ?, ?, ?)", [.text("a"), .text("b"), .text("c"), .text("d"), .text("e")]) }
            let row = try Row.fetchOne(db, sql: "SELECT t, r, i, n FROM kinds")
            #expect(row?["t"] as String? == "t")
            #expect(row?["r"] as Double? == 0.5)
            #expect(row?["i"] as Int64? == Int64.min)
            #expect(row?["n"] as String? == nil)
            // Statements of 16 rows, then one per row left: every row, in order, whatever the count.
            for n in [0, 1, Database.rowsPerStatement, Database.rowsPerStatement + 1, 40] {
                try db.run("DELETE FROM kinds", [])
                var statements = 0
                try db.insert(into: "kinds(t, r, i, n)", columns: 4, 0..<n, values: { i, values in
                    values += [.text("t\(i)"), .real(Double(i) / 2), .integer(i), .null]
                }, between: { statements += 1 })
                let rows = try Row.fetchAll(db, sql: "SELECT t, r, i, n FROM kinds ORDER BY rowid")
                #expect(rows.map { $0["t"] as String } == (0..<n).map { "t\($0)" })
                #expect(rows.map { $0["r"] as Double } == (0..<n).map { Double($0) / 2 })
                #expect(rows.map { $0["i"] as Int } == Array(0..<n))
                #expect(rows.allSatisfy { $0["n"] as String? == nil })
                #expect(statements == n / Database.rowsPerStatement + n % Database.rowsPerStatement, "full statements, then a row each")
            }
        }
    }

    /// A commit writes each relay's row once, and leaves it as writing every edge in order would:
    /// a run that repeats the recorded state keeps the recorded instant, a change within the
    /// commit takes the instant of the last run's first edge.
    @Test(arguments: [
        // (recorded, edges in one commit, row after)
        (DeviceState.on, [(DeviceState.on, 10.0), (.on, 11)], (DeviceState.on, 0.0)),
        (.off, [(.on, 10), (.on, 11)], (.on, 10)),
        (.on, [(.off, 10), (.on, 11), (.on, 12)], (.on, 11)),
        (.on, [(.on, 10), (.off, 11), (.on, 12), (.on, 13)], (.on, 12)),
        (.off, [(.on, 10), (.off, 11)], (.off, 11)),
    ])
    func relayEdgesOfOneCommitEndAsWrittenOneByOne(recorded: DeviceState, edges: [(DeviceState, Double)], after: (DeviceState, Double)) async throws {
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        for grouped in [false, true] {
            let path = directory + "/edges-\(grouped).sqlite"
            let store = try StateStore(path: path, grouped: grouped)
            try store.saveRelayState(device: "fan", state: recorded, at: t0)
            try store.flushPending()
            for (state, at) in edges { try store.saveRelayState(device: "fan", state: state, at: t0 + at) }
            try store.flushPending()
            let row = try #require(try store.relayStatesSince()["fan"])
            #expect(row.state == after.0 && row.since == t0 + after.1, "grouped \(grouped): \(row)")
            if grouped { #expect(store.statistics.writes == 2, "one row write per commit") }
            try store.close()
        }
    }
}
