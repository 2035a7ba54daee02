/// Who coordinates the house and which nodes are online, as the answering controller sees it:
/// part of the reply to a status request (`housectl status`).
public struct CoordinationReport: Sendable, Equatable, Codable {
    /// One node and what the answering controller knows of it.
    public struct NodeState: Sendable, Equatable, Codable {
        public var node: NodeID
        /// `online`, `offline`, or `unknown` (no status heard yet).
        public var status: String
        /// Whether it may coordinate (`coordination.nodes`).
        public var mayCoordinate: Bool

        public init(node: NodeID, status: String, mayCoordinate: Bool) {
            self.node = node
            self.status = status
            self.mayCoordinate = mayCoordinate
        }

        enum CodingKeys: String, CodingKey {
            case node, status
            case mayCoordinate = "may_coordinate"
        }
    }

    /// The node that coordinates (nil: none right now, a takeover is due).
    public var coordinator: NodeID?
    public var term: UInt64
    /// The node that answered.
    public var answeredBy: NodeID
    public var nodes: [NodeState]

    public init(coordinator: NodeID?, term: UInt64, answeredBy: NodeID, nodes: [NodeState]) {
        self.coordinator = coordinator
        self.term = term
        self.answeredBy = answeredBy
        self.nodes = nodes
    }

    enum CodingKeys: String, CodingKey {
        case coordinator, term, nodes
        case answeredBy = "answered_by"
    }

    /// Two lines for people: `coordinator: pi-bedroom (term 2)` and `nodes: pi-main offline,
    /// pi-bedroom online, pi-garage online (may take over)`.
    public var lines: [String] {
        var who = coordinator.map { "\($0)" + (term > 0 ? " (term \(term))" : "") } ?? "none right now (a takeover is due)"
        if coordinator != answeredBy { who += ", answered by \(answeredBy)" }
        let several = nodes.filter(\.mayCoordinate).count > 1
        let states = nodes.map { n in
            "\(n.node) \(n.status)" + (several && n.mayCoordinate && n.node != coordinator ? " (may take over)" : "")
        }
        return ["coordinator: \(who)", "nodes: " + states.joined(separator: ", ")]
    }
}
