import Foundation
import GRDB
import HouseCore

/// Routine runs: recorded as planned before the runner waits for them, marked done in the same
/// commit as what they did (`RoutineRunRecord`).
extension StateStore {
    /// Records runs planned with their drawn delay. A run recorded already keeps its first
    /// record (its delay is drawn once; a done run stays done).
    public func recordPlannedRuns(_ runs: [ScheduledRun]) throws(DaemonError) {
        guard !runs.isEmpty else { return }
        let rows = runs.map { RoutineRunRecord(planned: $0) }
        try enqueue { db, between in
            for r in rows {
                try db.run(
                    "INSERT INTO routine_run(routine_id, nominal, day, due) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    [.text(r.key.routineID.rawValue), .integer(r.key.nominalSecond), .integer(r.day.daysSinceEpoch), .real(r.due.timeIntervalSince1970)])
                between()
            }
        }
    }

    /// Marks `run` done at `date` (a catch-up marks the run it catches up).
    public func markRunDone(_ run: ScheduledRun, at date: Date) throws(DaemonError) {
        let r = RoutineRunRecord(planned: run)
        try enqueue { db, _ in
            try db.run(
                "INSERT INTO routine_run(routine_id, nominal, day, due, done_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(routine_id, nominal) DO UPDATE SET done_at = excluded.done_at",
                [.text(r.key.routineID.rawValue), .integer(r.key.nominalSecond), .integer(r.day.daysSinceEpoch),
                 .real(r.due.timeIntervalSince1970), .real(date.timeIntervalSince1970)])
        }
    }

    /// Every recorded routine run, planned and done.
    public func routineRuns() throws(DaemonError) -> [RoutineRunRecord] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT routine_id, nominal, day, due, done_at FROM routine_run").map { row in
                let nominal: Int64 = row["nominal"]
                let done: Double? = row["done_at"]
                return RoutineRunRecord(
                    routineID: RoutineID(row["routine_id"] as String), day: LocalDate(daysSinceEpoch: row["day"]),
                    nominal: Date(timeIntervalSince1970: Double(nominal)),
                    due: Date(timeIntervalSince1970: row["due"]), done: done != nil)
            }
        }
    }
}
