import Foundation
import HouseCore
import Logging
import ServiceLifecycle

/// Runs the routines: catch-up and the reconciled desired state at start, then each routine at
/// its time, and the end of temporary modes, all as commands on the bus (source `routine`).
struct RoutineService<C: WallClock>: Service {
    let runner: RoutineRunner<C, SystemRandomNumberGenerator>
    let bus: CommandBus
    let store: StateStore
    /// Whether a persisted mode was restored (then the desired state does not override it).
    let restoredMode: Bool
    let logger: Logger

    func run() async throws {
        do {
            try await runRoutines()
        } catch is CancellationError {
            // Graceful shutdown: the runner stops between runs.
        }
    }

    private func runRoutines() async throws {
        try await cancelWhenGracefulShutdown {
            // The runs already logged, so that each planned run is announced once.
            var announced: Set<ScheduledRun.Key> = []
            try await runner.run { event in
                switch event {
                case .started(let start):
                    if let desired = start.desiredState, !restoredMode {
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
                    logger.info("routine \(run.routineID) runs (\(run.reason))")
                    let confirmed = runner.scheduler.routine(id: run.routineID)?.confirmed ?? false
                    _ = await bus.submit(.routineRun(run, spec.intent, confirmed: confirmed))
                case .modeExpired(let at):
                    logger.info("a temporary mode ends (due \(at))")
                    _ = await bus.submit(.revertExpiredMode)
                }
            }
        }
    }
}
