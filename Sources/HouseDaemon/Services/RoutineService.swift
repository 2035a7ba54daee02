import Foundation
import HouseCore
import Logging
import ServiceLifecycle

/// Runs the routines: catch-up and the reconciled desired state at start, then each routine at
/// its time, and the end of temporary modes, all through the one path (source `routine`).
struct RoutineService<C: WallClock>: Service {
    let runner: RoutineRunner<C, SystemRandomNumberGenerator>
    let gateway: IntentGateway
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
            try await runner.run { event in
                switch event {
                case .started(let start):
                    if let desired = start.desiredState, !restoredMode {
                        logger.info("routines say the house should be in mode \(desired.mode) (routine \(desired.routineID)); applying it")
                        await gateway.process(.setMode(SetHouseModeIntent(mode: desired.mode)), source: .routine)
                    }
                    if !start.catchUp.isEmpty {
                        logger.info("catching up \(start.catchUp.count) missed routine run(s)")
                    }
                case .run(let run, let spec):
                    logger.info("routine \(run.routineID) runs (\(run.reason))")
                    await gateway.process(spec.intent, source: .routine)
                case .modeReverted(let change):
                    logger.info("temporary mode ended: \(change)")
                    if let response = await gateway.service.revertExpiredMode() {
                        logger.info("mode reverted: \(response.dialog)")
                        do { try store.saveModes(await gateway.service.modeSnapshot, at: Date()) } catch { logger.error("\(error)") }
                        await gateway.publishMode()
                    }
                }
            }
        }
    }
}
