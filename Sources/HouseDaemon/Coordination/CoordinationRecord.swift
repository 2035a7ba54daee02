import Foundation
import HouseCore
import HouseMQTT
import Logging
import Signals
import Synchronization

/// What this node has heard on the broker that a node taking over needs: the routine runs
/// claimed (`RoutineRunBook`) and the coordinator's latest mode timeline. Fed by
/// `CoordinatorService` from the MQTT thread; read by the routines and the bus.
final class CoordinationRecord: Sendable {
    private struct State {
        var runs = RoutineRunBook()
        var modes: ModeSnapshot?
        /// Who waits for the first claim of a run, by waiter id.
        var waiting: [ScheduledRun.Key: [UInt64: CheckedContinuation<NodeID?, Never>]] = [:]
        var nextWaiter: UInt64 = 0
    }
    private let state = Mutex(State())

    /// The latest mode timeline a coordinator published (nil: none heard).
    var modes: ModeSnapshot? { state.withLock { $0.modes } }

    /// Every run claimed on the broker, as done records.
    var claimedRuns: [RoutineRunRecord] { state.withLock { $0.runs.doneRecords } }

    func heardRun(_ claim: RoutineRunClaim, retained: Bool) {
        let (winner, waiters) = state.withLock { s -> (NodeID?, [CheckedContinuation<NodeID?, Never>]) in
            guard let winner = s.runs.heard(claim, retained: retained) else { return (nil, []) }
            return (winner, Array((s.waiting.removeValue(forKey: claim.key) ?? [:]).values))
        }
        for waiter in waiters { waiter.resume(returning: winner) }
    }

    func heardModes(_ payload: [UInt8], from topic: String, logger: Logger) {
        guard !payload.isEmpty else { return }
        do {
            try InputLimits.checkJSON(payload)
            let snapshot = try JSONDecoder().decode(ModeSnapshot.self, from: Data(payload))
            state.withLock { $0.modes = snapshot }
        } catch {
            logger.warning("coordination: ignored the mode timeline on \(topic): \(error)")
        }
    }

    /// Claims `run` for `node` in `term` and returns whether this node carries it out: its claim
    /// (retained, on the routine's run topic) came back first. False when another node's claim
    /// of the same run came first, or no claim came back within `limit` (the broker is slow or
    /// gone: the run is not carried out rather than perhaps carried out twice).
    func claim(_ run: ScheduledRun, node: NodeID, term: UInt64, client: MQTTClient, layout: TopicLayout,
               within limit: Duration, logger: Logger) async -> Bool {
        let claim = RoutineRunClaim(run: run, node: node, term: term)
        let key = claim.key
        let id = state.withLock { s in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        let winner: NodeID?? = await withTimeLimit(limit) { [self] in
            await withTaskCancellationHandler {
                await withCheckedContinuation { (c: CheckedContinuation<NodeID?, Never>) in
                    let known: NodeID?? = state.withLock { s in
                        if let winner = s.runs.winner(of: key) { return .some(winner) }
                        if Task.isCancelled { return .some(nil) }
                        s.waiting[key, default: [:]][id] = c
                        return .none
                    }
                    if let known {
                        c.resume(returning: known)
                        return
                    }
                    do {
                        _ = try client.send(MQTTMessage(topic: layout.routineRun(routine: run.routineID), string: claim.json,
                                                        qos: .atLeastOnce, retain: true))
                    } catch {
                        logger.warning("coordination: could not claim the run of \(run.routineID): \(error)")
                    }
                }
            } onCancel: {
                let waiter = state.withLock { $0.waiting[key]?.removeValue(forKey: id) }
                waiter?.resume(returning: nil)
            }
        }
        guard let decided = winner, let node2 = decided else {
            logger.warning("coordination: the claim of \(run.routineID)'s run did not come back within \(limit); not running it")
            return false
        }
        if node2 != node { logger.info("coordination: \(run.routineID)'s run was claimed first by \(node2)") }
        return node2 == node
    }
}
