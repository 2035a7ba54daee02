import HouseCore
import Signals
import Synchronization

/// Whether this node coordinates the house now: what the parts that act only on the coordinator
/// read (the topic API's house-level topics, the rules, the routines, the mode topic). Written by
/// `CoordinatorService` alone, from its `CoordinatorElection`; read from any thread.
///
/// A node that is the only one allowed to coordinate (a house of one Pi, or `coordination.nodes`
/// naming one) always coordinates, broker or not: its routines and rules do not wait for MQTT.
public final class Coordination: Sendable {
    /// What this node knows of the coordination now.
    public struct Status: Sendable, Equatable {
        /// The node that coordinates, as far as this node knows (nil: none now, a takeover is due).
        public var coordinator: NodeID?
        /// The term of the coordinator's claim (0: none seen).
        public var term: UInt64
        /// While this node coordinates: until when its lease is confirmed, on the monotonic clock
        /// (nil: it does not).
        public var actingUntil: WallInstant?
        /// When this node started coordinating, the previous coordinator was last heard from then,
        /// on the wall clock (nil: not known): the routines due since are caught up.
        public var previousLastHeard: WallInstant?
        /// Counts this node's starts and ends of coordinating.
        public var generation: UInt64
    }

    public let node: NodeID
    /// The nodes that may coordinate, the preferred first.
    public let candidates: [NodeID]
    public let lease: Duration
    private let now: @Sendable () -> WallInstant
    private let state: Mutex<Status>
    /// Told whenever `status` changes.
    public let changes = ChangeFeed()

    public init(node: NodeID, candidates: [NodeID], lease: Duration, now: @escaping @Sendable () -> WallInstant) {
        self.node = node
        self.candidates = candidates
        self.lease = lease
        self.now = now
        // The only candidate coordinates from the start, for ever.
        let alone = candidates == [node]
        state = Mutex(Status(coordinator: alone ? node : nil, term: 0,
                             actingUntil: alone ? WallInstant(sinceEpoch: .seconds(Int64.max / 2)) : nil,
                             previousLastHeard: nil, generation: alone ? 1 : 0))
    }

    /// Whether this node is the only one that may coordinate (no election).
    public var isAlone: Bool { candidates == [node] }
    /// Whether this node may coordinate at all.
    public var isCandidate: Bool { candidates.contains(node) }

    /// What this node knows now.
    public var status: Status { state.withLock { $0 } }

    /// Whether this node coordinates now (its lease confirmed and not run out).
    public var isActing: Bool {
        let until = state.withLock { $0.actingUntil }
        guard let until else { return false }
        return now() < until
    }

    /// Whether no node coordinates as far as this one knows (between a coordinator's end and
    /// the next one's start): commands for the coordinator are kept for whoever takes over.
    public var isInterregnum: Bool { state.withLock { $0.coordinator == nil } }

    /// Sets what the election says (`CoordinatorService` only), and tells the watchers.
    func update(_ change: (inout Status) -> Void) {
        let changed = state.withLock { s -> Bool in
            let before = s
            change(&s)
            if (before.actingUntil == nil) != (s.actingUntil == nil) { s.generation += 1 }
            return s != before
        }
        if changed { changes.changed() }
    }
}

extension Coordination {
    /// Who coordinates and which nodes are online, as this node knows it (`nodes`: each other
    /// node's last reported status).
    func report(in configuration: HouseConfiguration, nodes heard: [NodeID: Bool]) -> CoordinationReport {
        let status = self.status
        let nodes = configuration.nodes.map { n in
            let state = n.id == node ? "online" : heard[n.id].map { $0 ? "online" : "offline" } ?? "unknown"
            return CoordinationReport.NodeState(node: n.id, status: state, mayCoordinate: candidates.contains(n.id))
        }
        return CoordinationReport(coordinator: status.coordinator, term: status.term, answeredBy: node, nodes: nodes)
    }
}
