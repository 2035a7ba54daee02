import Foundation
import HouseCore
import Logging
import ServiceLifecycle

/// Runs the routines: catch-up and the reconciled desired state at start, then each routine at
/// its time, and the end of temporary modes, all as commands on the bus (source `routine`).
struct RoutineService<C: WallClock>: Service {
    let runner: RoutineRunner<C, SystemRandomNumberGenerator>
    let bus: CommandBus
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
            try await runner.run { event in
                switch event {
                case .started(let start):
                    if let desired = start.desiredState, !restoredMode {
                        logger.info("routines say the house should be in mode \(desired.mode) (routine \(desired.routineID)); applying it")
                        _ = await bus.submit(.intent(.setMode(SetHouseModeIntent(mode: desired.mode)), source: .routine,
                                                     answers: .none, requestID: nil))
                    }
                    if !start.catchUp.isEmpty {
                        logger.info("catching up \(start.catchUp.count) missed routine run(s)")
                    }
                case .run(let run, let spec):
                    logger.info("routine \(run.routineID) runs (\(run.reason))")
                    _ = await bus.submit(.intent(spec.intent, source: .routine, answers: .none, requestID: nil))
                case .modeReverted(let change):
                    logger.info("temporary mode ended: \(change)")
                    _ = await bus.submit(.revertExpiredMode)
                }
            }
        }
    }
}
