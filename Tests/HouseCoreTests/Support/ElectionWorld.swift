import Foundation
import HouseCore

/// Nodes running `CoordinatorElection` against a simulated broker, for the property test: one
/// broker that processes what it receives in order and delivers to each connected node in order
/// after that node's delay; retained claims; last wills; a probe after each connect; each node's
/// clock offset from the others. Routine runs fall due every 4 s; the acting coordinator claims
/// each (and, when it takes over, those due since the previous one was last heard) and carries it
/// out when its claim is the first delivered (`RoutineRunBook`), as the daemon does.
struct ElectionWorld {
    struct Event {
        var at: Int64
        var node: Int
        /// 0: kill, 1: restart, 2: link down, 3: link up, 4: set its delay, 5: graceful shutdown.
        var kind: Int
        var delay: Int64
    }

    enum Payload {
        case claim(CoordinatorClaim)
        case run(RoutineRunClaim)
        case status(NodeID, online: Bool)
        case probe(Int)
    }

    struct Delivery {
        var at: Int64
        var payload: Payload
        var retained: Bool
    }

    struct Node {
        var election: CoordinatorElection
        var alive = true
        var connected = false
        var delay: Int64 = 0
        var queue: [Delivery] = []
        var lastQueued: Int64 = 0
        var probe = 0
        var book = RoutineRunBook()
        /// Runs this node claimed in its current term.
        var claimed: Set<Int> = []
        var term: UInt64 = 0
        var lastHeard: Int64?
        var since: Int64 = 0
        var caughtUp = true
    }

    let ids: [NodeID]
    let lease: Duration
    let offsets: [Int64]
    var nodes: [Node]
    var now: Int64 = 0
    /// Publishes on their way to the broker: (arrival, from, payload).
    var inbound: [(Int64, Int, Payload)] = []
    var retainedClaim: CoordinatorClaim?
    var retainedRuns: [RoutineRunClaim] = []
    var retainedStatus: [NodeID: Bool] = [:]
    /// term -> the nodes that became its coordinator.
    var coordinators: [UInt64: Set<NodeID>] = [:]
    /// run -> the nodes that carried it out.
    var carriedOut: [Int: [NodeID]] = [:]
    var overlaps: [String] = []
    /// Prints what happens (debugging a failing schedule).
    var trace = false
    static let runEvery: Int64 = 4_000
    static let routine: RoutineID = "r"

    init(nodes ids: [NodeID], lease: Duration, offsets: [Int64]) {
        self.ids = ids
        self.lease = lease
        self.offsets = offsets
        nodes = ids.map { Node(election: CoordinatorElection(settings: .init(node: $0, candidates: ids, lease: lease))) }
        for i in ids.indices { connect(i) }
    }

    var doubledTerms: [UInt64] { coordinators.filter { $0.value.count > 1 }.map(\.key).sorted() }
    var doubledRuns: [Int] { carriedOut.filter { $0.value.count > 1 }.map(\.key).sorted() }
    var runsCarriedOut: Int { carriedOut.count }
    var actingAtEnd: [NodeID] { nodes.indices.filter { isActing($0) }.map { ids[$0] } }

    func local(_ i: Int) -> WallInstant { WallInstant(sinceEpoch: .milliseconds(now + offsets[i])) }
    func isActing(_ i: Int) -> Bool { nodes[i].alive && nodes[i].election.isActing(at: local(i)) }

    mutating func run(_ events: [Event], until end: Int64, checkOverlap: Bool) {
        let sorted = events.sorted { $0.at < $1.at }
        var next = 0
        var quietDone = false
        while now <= end {
            while next < sorted.count, sorted[next].at <= now {
                apply(sorted[next])
                next += 1
            }
            // The quiet minute: everyone alive, connected, fast.
            if !quietDone && now >= 60_000 {
                quietDone = true
                for i in nodes.indices {
                    nodes[i].delay = 0
                    if !nodes[i].alive { restart(i) } else if !nodes[i].connected { connect(i) }
                }
            }
            settle()
            for i in nodes.indices where nodes[i].alive {
                let actions = nodes[i].election.tick(at: local(i))
                handle(actions, of: i)
                claimDueRuns(i)
            }
            settle()
            if checkOverlap {
                let acting = nodes.indices.filter { isActing($0) }
                if acting.count > 1 { overlaps.append("\(now) ms: \(acting.map { ids[$0] })") }
            }
            now += 50
        }
    }

    // MARK: Events

    mutating func apply(_ event: Event) {
        let i = event.node
        if trace { print("TRACE \(now) event \(event.kind) on \(ids[i])") }
        switch event.kind {
        case 0:  // kill -9: the broker publishes its will
            guard nodes[i].alive else { return }
            nodes[i].alive = false
            drop(i)
        case 1:
            if !nodes[i].alive { restart(i) }
        case 2:
            guard nodes[i].alive, nodes[i].connected else { return }
            drop(i)
            handle(nodes[i].election.disconnected(at: local(i)), of: i)
        case 3:
            if nodes[i].alive, !nodes[i].connected { connect(i) }
        case 4:
            nodes[i].delay = event.delay
        default:  // graceful shutdown: release, then gone (restarted later by the quiet minute)
            guard nodes[i].alive else { return }
            if let release = nodes[i].election.release(at: local(i)), nodes[i].connected {
                publish(.claim(release), from: i)
                settle()
            }
            nodes[i].alive = false
            drop(i)
        }
    }

    mutating func restart(_ i: Int) {
        nodes[i] = Node(election: CoordinatorElection(settings: .init(node: ids[i], candidates: ids, lease: lease)))
        connect(i)
    }

    /// The connection is gone; the broker publishes the node's will.
    mutating func drop(_ i: Int) {
        nodes[i].connected = false
        nodes[i].queue = []
        brokerReceives(.status(ids[i], online: false), from: i)
    }

    mutating func connect(_ i: Int) {
        nodes[i].connected = true
        nodes[i].election.connected(at: local(i))
        nodes[i].lastQueued = now
        // Subscribed: the retained messages, then the probe's echo, then its status.
        if let claim = retainedClaim { enqueue(.claim(claim), to: i, retained: true) }
        for run in retainedRuns { enqueue(.run(run), to: i, retained: true) }
        for (node, online) in retainedStatus { enqueue(.status(node, online: online), to: i, retained: true) }
        nodes[i].probe += 1
        publish(.probe(nodes[i].probe), from: i)
        publish(.status(ids[i], online: true), from: i)
    }

    // MARK: The broker

    mutating func publish(_ payload: Payload, from i: Int) {
        guard nodes[i].connected else { return }
        inbound.append((now + nodes[i].delay, i, payload))
    }

    mutating func brokerReceives(_ payload: Payload, from i: Int) {
        switch payload {
        case .claim(let c): retainedClaim = c
        case .run(let r): retainedRuns.removeAll { $0.routine == r.routine }; retainedRuns.append(r)
        case .status(let n, let online): retainedStatus[n] = online
        case .probe:
            enqueue(payload, to: i, retained: false)
            return
        }
        for j in nodes.indices where nodes[j].connected { enqueue(payload, to: j, retained: false) }
    }

    mutating func enqueue(_ payload: Payload, to j: Int, retained: Bool) {
        let at = max(nodes[j].lastQueued, now + nodes[j].delay)
        nodes[j].lastQueued = at
        nodes[j].queue.append(Delivery(at: at, payload: payload, retained: retained))
    }

    /// Processes what has arrived at the broker and what has reached the nodes, until nothing more is due.
    mutating func settle() {
        var progress = true
        while progress {
            progress = false
            inbound.sort { $0.0 < $1.0 }
            while let first = inbound.first, first.0 <= now {
                inbound.removeFirst()
                if nodes[first.1].connected || true { brokerReceives(first.2, from: first.1) }
                progress = true
            }
            for j in nodes.indices where nodes[j].alive && nodes[j].connected {
                while let d = nodes[j].queue.first, d.at <= now {
                    nodes[j].queue.removeFirst()
                    deliver(d, to: j)
                    progress = true
                }
            }
        }
    }

    mutating func deliver(_ d: Delivery, to j: Int) {
        if trace, case .claim(let c) = d.payload { print("TRACE \(now) \(ids[j]) hears \(c)\(d.retained ? " (retained)" : "")") }
        switch d.payload {
        case .claim(let c):
            handle(nodes[j].election.received(c, retained: d.retained, at: local(j)), of: j)
        case .status(let n, let online):
            nodes[j].election.nodeStatus(n, online: online)
        case .probe(let n):
            if n == nodes[j].probe { nodes[j].election.settled(at: local(j)) }
        case .run(let r):
            guard let winner = nodes[j].book.heard(r, retained: d.retained), winner == ids[j], r.node == ids[j] else { return }
            // Its own claim came back first: it carries the run out.
            let k = Int(r.nominalMilliseconds / Self.runEvery)
            carriedOut[k, default: []].append(ids[j])
        }
    }

    // MARK: The node's routines

    mutating func handle(_ actions: [CoordinatorElection.Action], of i: Int) {
        for action in actions {
            if trace { print("TRACE \(now) \(ids[i]): \(action)") }
            switch action {
            case .publish(let claim):
                publish(.claim(claim), from: i)
            case .becameCoordinator(let term, let lastHeard):
                coordinators[term, default: []].insert(ids[i])
                nodes[i].term = term
                nodes[i].claimed = []
                nodes[i].caughtUp = false
                nodes[i].since = now
                nodes[i].lastHeard = lastHeard.map { $0.sinceEpoch.wholeMilliseconds - offsets[i] }
            case .steppedDown:
                break
            }
        }
    }

    /// Runs fall due every `runEvery` (global time). As the daemon's runner does, a node that
    /// starts coordinating catches up the latest run due since the previous coordinator was last
    /// heard, unless it knows a run as late was claimed (the retained latest claim), then claims
    /// each run as it falls due; a run whose first claim it has heard already is not claimed.
    mutating func claimDueRuns(_ i: Int) {
        guard isActing(i), nodes[i].connected else { return }
        let latestDone = nodes[i].book.latest[Self.routine].map { Int($0.nominalMilliseconds / Self.runEvery) } ?? 0
        if !nodes[i].caughtUp {
            nodes[i].caughtUp = true
            let from = nodes[i].lastHeard ?? nodes[i].since
            let latest = Int(now / Self.runEvery)
            if latest >= 1, Int64(latest) * Self.runEvery > from, latest > latestDone { claim(latest, by: i) }
        }
        var k = Int(nodes[i].since / Self.runEvery) + 1
        while Int64(k) * Self.runEvery <= now {
            if k > latestDone { claim(k, by: i) }
            k += 1
        }
    }

    mutating func claim(_ k: Int, by i: Int) {
        guard !nodes[i].claimed.contains(k), nodes[i].book.winner(of: key(k)) == nil else { return }
        nodes[i].claimed.insert(k)
        let at = WallInstant(sinceEpoch: .milliseconds(Int64(k) * Self.runEvery)).date
        let run = ScheduledRun(routineID: Self.routine, day: LocalDate(daysSinceEpoch: 0), nominal: at, due: at,
                               window: nil, reason: .scheduled)
        publish(.run(RoutineRunClaim(run: run, node: ids[i], term: nodes[i].term)), from: i)
    }

    func key(_ k: Int) -> ScheduledRun.Key {
        ScheduledRun.Key(routineID: Self.routine, nominal: WallInstant(sinceEpoch: .milliseconds(Int64(k) * Self.runEvery)).date)
    }
}
