/// Which nodes may coordinate the house, and how long a coordinator's claim holds
/// (`coordination:` in house.yaml). See `CoordinatorElection`.
public struct CoordinationSettings: Sendable, Equatable {
    /// The nodes that may coordinate, the preferred first; nil: the first node of `nodes:` alone
    /// (no takeover: the house depends on it, as a house of one Pi does).
    public var nodes: [NodeID]?
    /// How long a coordinator's claim holds without a renewal: a dead coordinator is replaced
    /// after about this long (more for each preferred node that is also gone).
    public var lease: Duration

    /// The default lease: a takeover within about 6 to 7 seconds.
    public static let defaultLease: Duration = .seconds(6)
    /// The shortest and longest leases accepted.
    public static let leaseRange: ClosedRange<Duration> = .seconds(2) ... .seconds(120)

    public init(nodes: [NodeID]? = nil, lease: Duration = CoordinationSettings.defaultLease) {
        self.nodes = nodes
        self.lease = lease
    }

    /// The nodes that may coordinate in `configuration`, the preferred first (a house without
    /// nodes has one unnamed node, `node`).
    public func candidates(in configuration: HouseConfiguration, node: NodeID) -> [NodeID] {
        if let nodes { return nodes }
        return [configuration.nodes.first?.id ?? node]
    }
}
