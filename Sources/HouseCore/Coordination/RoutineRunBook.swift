/// The routine runs claimed on the broker, as one node has heard them (a value; the daemon keeps
/// one under a lock): the latest claim of each routine (what a node taking over counts as done),
/// and which node's claim of each recent run came first (who carries it out).
public struct RoutineRunBook: Sendable {
    /// The latest claim heard per routine.
    public private(set) var latest: [RoutineID: RoutineRunClaim] = [:]
    /// The first live claim of each recent run, oldest first.
    private var first: [ScheduledRun.Key: NodeID] = [:]
    private var order: [ScheduledRun.Key] = []
    /// How many runs' first claims are remembered.
    public static let remembered = 256

    public init() {}

    /// A claim arrived: `retained` when delivered at subscribe time (its order unknown). Returns
    /// the node whose claim of that run came first, when this decides it.
    @discardableResult
    public mutating func heard(_ claim: RoutineRunClaim, retained: Bool) -> NodeID? {
        if let known = latest[claim.routine], known.nominalMilliseconds > claim.nominalMilliseconds {
            // An older run's claim arriving late: the latest stays.
        } else {
            latest[claim.routine] = claim
        }
        guard !retained else { return nil }
        let key = claim.key
        if let winner = first[key] { return winner }
        first[key] = claim.node
        order.append(key)
        if order.count > Self.remembered { first[order.removeFirst()] = nil }
        return claim.node
    }

    /// The node whose claim of `key` came first, if one has been heard live.
    public func winner(of key: ScheduledRun.Key) -> NodeID? { first[key] }

    /// Every claimed run as a done record.
    public var doneRecords: [RoutineRunRecord] { latest.values.map(\.record) }
}
