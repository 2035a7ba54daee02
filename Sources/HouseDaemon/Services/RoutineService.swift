import Foundation
import HouseCore
import HouseMQTT
import Logging
import ServiceLifecycle
import Signals

/// Runs the routines while this node coordinates the house: catch-up and the reconciled desired
/// state at the start of each term, then each routine at its time, as commands on the bus
/// (source `routine`). When the node stops coordinating the
/// runner stops; the node that takes over catches up what fell due in between.
///
/// With several nodes that may coordinate, every run is claimed on the broker first
/// (`CoordinationRecord.claim`): of two coordinators around a takeover, only the one whose claim
/// came first carries the run out.
struct RoutineService<C: WallClock>: Service {
    let runner: RoutineRunner<C, SystemRandomNumberGenerator>
    let bus: CommandBus
    let store: StateStore
    /// Whether a persisted mode was restored (then the desired state does not override it).
    let restoredMode: Bool
    let coordination: Coordination
    let record: CoordinationRecord
    let client: MQTTClient
    let layout: TopicLayout
    let logger: Logger
    /// The most a run's claim waits for its echo from the broker.
    var claimWait: Duration { .seconds(5) }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await coordination.changes.watch { changed in
                while !Task.isCancelled {
                    guard coordination.isActing else {
                        await changed.wait()
                        continue
                    }
                    let status = coordination.status
                    await withTaskGroup(of: Void.self) { group in
                        group.addTask {
                            do {
                                try await runRoutines(term: status.term, lastHeard: status.previousLastHeard)
                            } catch {
                                // Cancelled: this term ended, or the graceful shutdown.
                            }
                        }
                        group.addTask {
                            while !Task.isCancelled, coordination.status.generation == status.generation {
                                await changed.wait()
                            }
                        }
                        await group.next()
                        group.cancelAll()
                    }
                    if !coordination.isActing && !Task.isCancelled { logger.info("routines stopped: this node no longer coordinates") }
                }
            }
        }
    }

    private func runRoutines(term: UInt64, lastHeard: WallInstant?) async throws {
        // The runs of earlier coordinators are done; what fell due since the last one was heard
        // from is caught up (per `catch_up`).
        let claimed = coordination.isAlone ? [] : record.claimedRuns
        let records = claimed.isEmpty ? nil : runner.records + claimed
        // The modes of the last coordinator were adopted: they are the house's state, not the desired state.
        let keepModes = restoredMode || record.modes != nil
        // The runs already logged, so that each planned run is announced once.
        var announced: Set<ScheduledRun.Key> = []
        try await runner.run(lastActive: lastHeard.map { .some($0.date) }, records: records) { event in
            switch event {
            case .started(let start):
                if let desired = start.desiredState, !keepModes {
                    logger.info("routines say the house should be in mode \(desired.mode) (routine \(desired.routineID)); applying it")
                    for intent in desired.intents(at: runner.clock.now.date) {
                        _ = await bus.submit(.intent(.setMode(intent), source: .routine, answers: .none, requestID: nil))
                    }
                }
                if !start.catchUp.isEmpty {
                    logger.info("catching up \(start.catchUp.count) missed routine run(s)")
                }
            case .planned(let runs):
                // Committed by the state recorder within 100 ms: a restart takes them back.
                do { try store.recordPlannedRuns(runs) } catch { logger.error("\(error)") }
                for run in runs where !announced.contains(run.key) {
                    logger.info("routine \(run.routineID) next runs at \(run.due)")
                }
                announced = Set(runs.map(\.key))
            case .run(let run, let spec):
                guard coordination.isActing else {
                    logger.info("routine \(run.routineID) not run: this node no longer coordinates")
                    return
                }
                if !coordination.isAlone {
                    guard await record.claim(run, node: coordination.node, term: term, client: client, layout: layout,
                                             within: claimWait, logger: logger) else { return }
                }
                logger.info("routine \(run.routineID) runs (\(run.reason))")
                let confirmed = runner.scheduler.routine(id: run.routineID)?.confirmed ?? false
                _ = await bus.submit(.routineRun(run, spec.intent, confirmed: confirmed))
            }
        }
    }
}
