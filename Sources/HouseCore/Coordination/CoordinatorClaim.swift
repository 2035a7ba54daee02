import Foundation

/// A node's claim to coordinate the house, retained on `<base>/coordinator`:
/// `{"clock_ms":5120431,"lease_ms":6000,"node":"pi-main","renewal":0,"term":7001}`.
///
/// The coordinator renews it (same term, `renewal` counting up) a few times per lease; the other
/// nodes watch it. A term is a round and its node (see `CoordinatorElection`); rounds only grow.
/// Of two nodes claiming in the same round, the one whose claim the broker delivered first holds
/// it (every subscriber sees one broker's messages on one topic in the same order). `released` is
/// a graceful step-down (the next node takes over at once instead of after the lease).
public struct CoordinatorClaim: Sendable, Equatable, Codable, CustomStringConvertible {
    public var node: NodeID
    public var term: UInt64
    /// 0 for the claim that starts a term, then 1, 2, ... for its renewals.
    public var renewal: UInt64
    /// How long the claim holds after it was made or renewed, unless renewed again.
    public var leaseMilliseconds: Int64
    /// When it was made or renewed, on the claimant's own monotonic clock (milliseconds since an
    /// origin of its own, not a date): the claimant's lease runs from this instant. The other
    /// nodes count from when they received it.
    public var atMilliseconds: Int64
    /// The coordinator stepped down (it is shutting down).
    public var released: Bool?

    enum CodingKeys: String, CodingKey {
        case node, term, renewal, released
        case leaseMilliseconds = "lease_ms"
        case atMilliseconds = "clock_ms"
    }

    public init(node: NodeID, term: UInt64, renewal: UInt64 = 0, lease: Duration, at: WallInstant, released: Bool = false) {
        self.node = node
        self.term = term
        self.renewal = renewal
        self.leaseMilliseconds = lease.wholeMilliseconds
        self.atMilliseconds = at.sinceEpoch.wholeMilliseconds
        self.released = released ? true : nil
    }

    public var lease: Duration { .milliseconds(leaseMilliseconds) }
    public var at: WallInstant { WallInstant(sinceEpoch: .milliseconds(atMilliseconds)) }
    public var isReleased: Bool { released == true }

    public var description: String {
        "\(node) term \(term)" + (renewal > 0 ? " renewal \(renewal)" : "") + (isReleased ? " (released)" : "")
    }

    /// Compact JSON with sorted keys.
    public var json: String { sortedJSON() }

    /// Parses a payload held to `InputLimits`; the error says what was expected.
    public static func parse(_ payload: [UInt8]) throws(MalformedInput) -> CoordinatorClaim {
        try InputLimits.checkJSON(payload)
        guard let claim = try? JSONDecoder().decode(CoordinatorClaim.self, from: Data(payload)), !claim.node.isEmpty,
              claim.term > 0, claim.leaseMilliseconds > 0
        else { throw MalformedInput(#"expected {"node":ID,"term":N>0,"renewal":N,"lease_ms":N>0,"clock_ms":N}"#) }
        try InputLimits.checkID(claim.node.rawValue, field: "node")
        return claim
    }
}
