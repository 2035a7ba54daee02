import Foundation

/// The coordinator's claim of one routine run, retained on `<base>/routine/<routine>/run` and
/// published before the run is carried out:
/// `{"day":20781,"due_ms":...,"node":"pi-main","nominal_ms":...,"routine":"good-morning","term":7}`.
///
/// A run is identified by its routine and nominal instant (`ScheduledRun.Key`). Of two claims of
/// one run (two coordinators around a takeover), the first the broker delivered wins, and only
/// its node carries the run out; a node that takes over counts every claimed run as done.
public struct RoutineRunClaim: Sendable, Equatable, Codable {
    public var routine: RoutineID
    public var node: NodeID
    public var term: UInt64
    public var nominalMilliseconds: Int64
    public var dueMilliseconds: Int64
    /// The run's local day, as days since 1970-01-01.
    public var day: Int

    enum CodingKeys: String, CodingKey {
        case routine, node, term, day
        case nominalMilliseconds = "nominal_ms"
        case dueMilliseconds = "due_ms"
    }

    public init(run: ScheduledRun, node: NodeID, term: UInt64) {
        routine = run.routineID
        self.node = node
        self.term = term
        nominalMilliseconds = WallInstant(run.nominal).sinceEpoch.wholeMilliseconds
        dueMilliseconds = WallInstant(run.due).sinceEpoch.wholeMilliseconds
        day = run.day.daysSinceEpoch
    }

    /// The run it claims.
    public var key: ScheduledRun.Key {
        ScheduledRun.Key(routineID: routine, nominal: WallInstant(sinceEpoch: .milliseconds(nominalMilliseconds)).date)
    }

    /// The run as a done record (what a node taking over must not run again).
    public var record: RoutineRunRecord {
        RoutineRunRecord(routineID: routine, day: LocalDate(daysSinceEpoch: day),
                         nominal: WallInstant(sinceEpoch: .milliseconds(nominalMilliseconds)).date,
                         due: WallInstant(sinceEpoch: .milliseconds(dueMilliseconds)).date, done: true)
    }

    /// Compact JSON with sorted keys.
    public var json: String { sortedJSON() }

    /// Parses a payload held to `InputLimits`; the error says what was expected.
    public static func parse(_ payload: [UInt8]) throws(MalformedInput) -> RoutineRunClaim {
        try InputLimits.checkJSON(payload)
        guard let claim = try? JSONDecoder().decode(RoutineRunClaim.self, from: Data(payload)),
              !claim.routine.isEmpty, !claim.node.isEmpty
        else { throw MalformedInput(#"expected {"routine":ID,"node":ID,"term":N,"nominal_ms":N,"due_ms":N,"day":N}"#) }
        try InputLimits.checkID(claim.routine.rawValue, field: "routine")
        try InputLimits.checkID(claim.node.rawValue, field: "node")
        return claim
    }
}
