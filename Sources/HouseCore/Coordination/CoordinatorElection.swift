/// Which node coordinates the house (answers intent requests, keeps the modes, runs routines and
/// rules), decided through the one MQTT broker the nodes share, with no protocol of its own: a
/// value that takes what the node hears and when, and says what to publish and when this node
/// starts or stops coordinating. `CoordinatorService` feeds it from MQTT and the clock.
///
/// - **Claims.** A node claims with a retained `CoordinatorClaim` of a new term. A term is a
///   round and the node: `round * 1000 + n`, n the node's place (from 1) in the nodes that may
///   coordinate, so no two nodes ever claim the same term, even after the broker's retained claim
///   went back to an older one (a message of an old connection stored after a newer one) and a
///   restarted node knows no better. A claim's round is one above every round the node has seen. Of
///   the claims of one round, the first the broker delivered wins: every node sees the broker's
///   messages on the topic in the same order, so every node, the claimants included, agrees. A
///   claimant coordinates once its own claim comes back first. A node that subscribed after a
///   round's winning claim (and found an older claim retained: a late message of an old
///   connection) may hear its own claim of that round first; the winner's renewals, whose opening
///   claim it never heard live, tell it that the winner came first, and it steps down.
/// - **Lease.** The coordinator renews its claim every third of the lease and acts only while the
///   broker has confirmed a renewal (it came back) within the lease, measured from the renewal's
///   own sending time on its own clock. The others count the lease (plus a margin for delivery)
///   from when they *received* the last renewal, which is never before it was sent: by the time a
///   node may claim, the old coordinator has stopped acting, even when it is still alive but cut
///   off (its renewals no longer come back). A dead coordinator's last will (its node `offline`)
///   does not shorten the wait for that reason; a coordinator that shuts down releases its claim,
///   and the next node takes over at once.
/// - **Order.** When the claim lapses, the nodes that may coordinate claim in the configured order:
///   the first that is not known to be offline at once, each next one half a lease later if no
///   claim came. A node that finds its own claim as the broker's latest (it restarted) claims a
///   new term at once, so a restart of the coordinator keeps the house with it. A node that comes
///   back and sees a newer term stays a follower.
/// - **Start.** A node claims nothing until it is *settled*: connected, subscribed, and sure that
///   the broker's retained claim (if any) has reached it (`CoordinatorService` publishes a probe
///   after subscribing and waits for its echo, which comes after any retained claim).
///
/// All instants are this node's clock.
public struct CoordinatorElection: Sendable {
    public struct Settings: Sendable, Equatable {
        /// This node.
        public var node: NodeID
        /// The nodes that may coordinate, the preferred first.
        public var candidates: [NodeID]
        public var lease: Duration

        public init(node: NodeID, candidates: [NodeID], lease: Duration) {
            self.node = node
            self.candidates = candidates
            self.lease = lease
        }

        /// How often the coordinator renews its claim.
        public var renewEvery: Duration { lease / 3 }
        /// How long each node ahead in `candidates` gets to claim first after a lapse.
        public var stagger: Duration { lease / 2 }
        /// What a node waiting for a lease to lapse adds for the renewal's way through the broker.
        public var margin: Duration { lease / 10 }
        /// Whether this node may coordinate at all.
        public var isCandidate: Bool { candidates.contains(node) }
    }

    public enum Role: Sendable, Equatable, CustomStringConvertible {
        case follower
        /// Claimed `term`, waiting to see whether its claim came first.
        case candidate(term: UInt64)
        case coordinator(term: UInt64)

        public var description: String {
            switch self {
            case .follower: "follower"
            case .candidate(let t): "candidate for term \(t)"
            case .coordinator(let t): "coordinator in term \(t)"
            }
        }
    }

    public enum Action: Sendable, Equatable {
        /// Publish this claim (retained, QoS 1) on the coordinator topic.
        case publish(CoordinatorClaim)
        /// This node coordinates from now on. `lastHeard` is when the previous coordinator was last
        /// heard from (nil: none known, or it was this node before a restart): what was due since
        /// then is caught up.
        case becameCoordinator(term: UInt64, lastHeard: WallInstant?)
        /// This node stopped coordinating, and why.
        case steppedDown(term: UInt64, reason: String)
    }

    public let settings: Settings
    public private(set) var role: Role = .follower
    /// The claim this node follows: the winner of the newest term it knows, as last renewed.
    public private(set) var holder: CoordinatorClaim?
    /// When the holder's latest claim or renewal arrived.
    public private(set) var holderHeardAt: WallInstant?
    /// The holder came retained (at subscribe): it may be a claim that lost its term.
    private var holderTentative = false
    /// The holder is this node's own claim from before (a restart) or one it gave up.
    private var holderIsStaleSelf = false
    /// The first claim delivered live in each recent round.
    private var firstOfRound: [UInt64: NodeID] = [:]
    /// The nodes whose opening claim (renewal 0) of each recent round this node heard live.
    private var openingsHeard: [UInt64: Set<NodeID>] = [:]
    /// The highest term seen.
    public private(set) var maxTerm: UInt64 = 0
    /// Nodes whose status says offline.
    private var offline: Set<NodeID> = []
    /// Connected and settled since then (nil: not).
    private var settledAt: WallInstant?
    /// As coordinator: until when the broker has confirmed the lease, the last renewal sent.
    public private(set) var confirmedUntil: WallInstant?
    private var lastRenewalAt: WallInstant?
    private var renewal: UInt64 = 0
    /// As candidate: since when, and who held the house when the claim was made.
    private var candidateSince: WallInstant?
    private var heardBeforeClaim: WallInstant?
    /// Released (shutting down): it claims nothing any more.
    private var retired = false

    public init(settings: Settings) {
        self.settings = settings
    }

    /// Terms per round: a term is `round * termsPerRound + n`, n the claimant's place (from 1).
    public static let termsPerRound: UInt64 = 1000

    /// The round of a term.
    public static func round(of term: UInt64) -> UInt64 { term / termsPerRound }

    private func round(_ term: UInt64) -> UInt64 { Self.round(of: term) }

    /// This node's term in `round`.
    private func term(inRound round: UInt64) -> UInt64 {
        let place = UInt64((settings.candidates.firstIndex(of: me) ?? 0) + 1)
        return round * Self.termsPerRound + min(place, Self.termsPerRound - 1)
    }

    private var me: NodeID { settings.node }

    /// Whether this node coordinates at `now`: it won its term and its lease is confirmed.
    public func isActing(at now: WallInstant) -> Bool {
        guard case .coordinator = role, let confirmedUntil else { return false }
        return now < confirmedUntil
    }

    /// The node that coordinates as far as this node knows (itself included), nil when none.
    public var coordinator: NodeID? {
        if case .coordinator = role { return me }
        guard let holder, !holder.isReleased, !holderIsStaleSelf else { return nil }
        return holder.node
    }

    /// The current term as this node knows it.
    public var term: UInt64 {
        switch role {
        case .coordinator(let t), .candidate(let t): t
        case .follower: holder?.term ?? 0
        }
    }

    // MARK: What the node hears

    /// The MQTT connection came up; nothing is claimed until `settled`.
    public mutating func connected(at now: WallInstant) {
        settledAt = nil
    }

    /// The broker's retained claim, if any, has arrived (the probe's echo came back).
    public mutating func settled(at now: WallInstant) {
        settledAt = now
    }

    /// The MQTT connection went down: a coordinator stops at once (it cannot renew, and the others
    /// will take over once its lease lapses).
    public mutating func disconnected(at now: WallInstant) -> [Action] {
        settledAt = nil
        switch role {
        case .coordinator(let t):
            role = .follower
            confirmedUntil = nil
            holderIsStaleSelf = holder?.node == me
            return [.steppedDown(term: t, reason: "the connection to the broker was lost")]
        case .candidate:
            role = .follower
            return []
        case .follower:
            return []
        }
    }

    /// A node's status (`online`/`offline`, its birth message and last will).
    public mutating func nodeStatus(_ node: NodeID, online: Bool) {
        if online { offline.remove(node) } else { offline.insert(node) }
    }

    /// A claim arrived on the coordinator topic. `retained`: delivered at subscribe time (its
    /// place in the order of its term is unknown).
    public mutating func received(_ claim: CoordinatorClaim, retained: Bool, at now: WallInstant) -> [Action] {
        maxTerm = max(maxTerm, claim.term)
        if retained {
            // The broker's latest claim. This node's own, while it is not claiming that term: left
            // over from before a restart (or given up), so this node may claim again at once.
            guard holder.map({ round(claim.term) >= round($0.term) }) ?? true else { return [] }
            let own = claim.node == me && role != .coordinator(term: claim.term) && role != .candidate(term: claim.term)
            if own || role == .follower {
                holder = claim
                holderHeardAt = now
                holderTentative = !own
                holderIsStaleSelf = own
            }
            return []
        }
        // Which claim came first in this round.
        let claimRound = round(claim.term)
        if claim.renewal == 0 { openingsHeard[claimRound, default: []].insert(claim.node) }
        let first: NodeID
        if let known = firstOfRound[claimRound] {
            // A renewal (losers never renew) of a claim this node never heard open was made before
            // this node subscribed, so before any claim this node heard live: it came first.
            let openingUnheard = claim.renewal > 0 && !(openingsHeard[claimRound]?.contains(claim.node) ?? false)
            first = openingUnheard ? claim.node : known
        } else if let holder, holderTentative, round(holder.term) == claimRound, holder.node != claim.node, claim.renewal == 0 {
            // A claim starting the round after the retained one: the retained one came first.
            first = holder.node
        } else {
            // The first live one (a renewal, when the retained claim was a loser's: losers never renew).
            first = claim.node
        }
        remember(first, ofRound: round(claim.term))
        guard claim.node == first else { return [] }  // lost its round
        if let holder, round(claim.term) < round(holder.term), role == .follower { return [] }  // an old round

        var actions: [Action] = []
        switch role {
        case .candidate(let t):
            if round(claim.term) == round(t) {
                if claim.node == me {
                    role = .coordinator(term: t)
                    confirmedUntil = claim.at.advanced(by: settings.lease)
                    lastRenewalAt = claim.at
                    renewal = claim.renewal
                    actions.append(.becameCoordinator(term: t, lastHeard: heardBeforeClaim))
                } else {
                    role = .follower
                }
            } else if round(claim.term) > round(t) {
                role = .follower
            } else {
                return []  // an older round's renewal while claiming: the claim decides
            }
        case .coordinator(let t):
            if claim.term == t && claim.node == me {
                // A renewal came back: the lease holds from when it was sent.
                let until = claim.at.advanced(by: settings.lease)
                if confirmedUntil.map({ until > $0 }) ?? true { confirmedUntil = until }
                if claim.isReleased {
                    role = .follower
                    confirmedUntil = nil
                    actions.append(.steppedDown(term: t, reason: "released"))
                }
            } else if round(claim.term) > round(t) {
                role = .follower
                confirmedUntil = nil
                actions.append(.steppedDown(term: t, reason: "\(claim.node) claimed term \(claim.term)"))
            } else if claimRound == round(t) && claim.node != me {
                role = .follower
                confirmedUntil = nil
                actions.append(.steppedDown(term: t, reason: "\(claim.node) won round \(claimRound) before this node subscribed (its renewal came)"))
            } else {
                return []  // an older round's stray renewal
            }
        case .follower:
            break
        }
        holder = claim
        holderHeardAt = now
        holderTentative = false
        holderIsStaleSelf = claim.node == me && role == .follower
        return actions
    }

    private mutating func remember(_ node: NodeID, ofRound round: UInt64) {
        firstOfRound[round] = node
        // Only the newest rounds matter: claims of older ones are ignored anyway.
        if firstOfRound.count > 8, let oldest = firstOfRound.keys.min() {
            firstOfRound[oldest] = nil
            openingsHeard[oldest] = nil  // its rounds are firstOfRound's: every claim heard is remembered
        }
    }

    // MARK: Time

    /// Time passed: renews, steps down when the lease was not confirmed, or claims when the
    /// holder's lease has lapsed and it is this node's turn.
    public mutating func tick(at now: WallInstant) -> [Action] {
        switch role {
        case .coordinator(let t):
            if let confirmedUntil, now >= confirmedUntil {
                role = .follower
                self.confirmedUntil = nil
                holderIsStaleSelf = holder?.node == me
                return [.steppedDown(term: t, reason: "no renewal came back from the broker within the lease")]
            }
            if let last = lastRenewalAt, now >= last.advanced(by: settings.renewEvery) {
                renewal += 1
                lastRenewalAt = now
                return [.publish(CoordinatorClaim(node: me, term: t, renewal: renewal, lease: settings.lease, at: now))]
            }
            return []
        case .candidate:
            // The claim never came back (the broker is slow or gone): claim again later.
            if let since = candidateSince, now >= since.advanced(by: settings.lease) { role = .follower }
            return []
        case .follower:
            guard let at = claimInstant(), now >= at else { return [] }
            let term = term(inRound: round(maxTerm) + 1)
            maxTerm = max(maxTerm, term)
            role = .candidate(term: term)
            candidateSince = now
            // When the previous coordinator was last heard from; nil after this node's own restart
            // (its own state store knows when it last ran).
            heardBeforeClaim = holderIsStaleSelf ? nil : holderHeardAt
            return [.publish(CoordinatorClaim(node: me, term: term, lease: settings.lease, at: now))]
        }
    }

    /// A graceful step-down (shutdown): the claim to publish so that the next node takes over at
    /// once; nil when this node does not coordinate. The node claims nothing after it.
    public mutating func release(at now: WallInstant) -> CoordinatorClaim? {
        retired = true
        guard case .coordinator(let t) = role else { return nil }
        role = .follower
        confirmedUntil = nil
        renewal += 1
        holderIsStaleSelf = true
        return CoordinatorClaim(node: me, term: t, renewal: renewal, lease: settings.lease, at: now, released: true)
    }

    /// When `tick` will next have something to do (nil: only when something is heard).
    public var nextDeadline: WallInstant? {
        switch role {
        case .coordinator:
            return [confirmedUntil, lastRenewalAt?.advanced(by: settings.renewEvery)].compactMap { $0 }.min()
        case .candidate:
            return candidateSince?.advanced(by: settings.lease)
        case .follower:
            return claimInstant()
        }
    }

    /// When this node claims if nothing is heard before: once settled, after the holder's lease
    /// (and margin) from when it was last heard, and half a lease for each node ahead of this one
    /// that is not known to be offline. Nil when it may not claim.
    private func claimInstant() -> WallInstant? {
        guard let settledAt, settings.isCandidate, !retired else { return nil }
        var lapse = settledAt
        var passed = offline
        if let holder, !holderIsStaleSelf {
            guard let heard = holderHeardAt else { return nil }
            let end = holder.isReleased ? heard : heard.advanced(by: settings.lease + settings.margin)
            lapse = max(lapse, end)
            passed.insert(holder.node)
        } else if holderIsStaleSelf {
            return settledAt  // its own claim from before: take the house back at once
        }
        let ahead = settings.candidates.prefix { $0 != me }.filter { !passed.contains($0) }.count
        return lapse.advanced(by: settings.stagger * ahead)
    }
}
