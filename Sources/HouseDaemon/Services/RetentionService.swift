import Foundation
import HouseCore
import Logging
import ServiceLifecycle

/// Keeps the history within its retention period: prunes at start and then once a day, on the
/// injected clock.
struct RetentionService: Service {
    let store: StateStore
    let clock: any WallClock
    let retention: Duration
    let logger: Logger

    /// The default history retention: 90 days.
    static let defaultRetention: Duration = .seconds(90 * 86_400)

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                while true {
                    prune()
                    try await clock.sleep(until: clock.now.advanced(by: .seconds(86_400)), tolerance: nil)
                }
            }
        } catch is CancellationError {
            // Graceful shutdown.
        }
    }

    func prune() {
        let cutoff = clock.now.advanced(by: .zero - retention).date
        do {
            let removed = try store.prune(before: cutoff)
            if removed > 0 { logger.info("history: removed \(removed) record(s) older than \(DurationParser.format(retention))") }
        } catch {
            logger.error("\(error)")
        }
    }
}
