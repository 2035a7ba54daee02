import Logging
import ServiceLifecycle

/// Commits the state store's grouped writes that nobody waits for: when a write is queued it
/// waits `interval` for more to join it, then commits them all in one transaction (at most one
/// commit per interval under load). Started before every writer and stopped after them, it makes
/// the last commit once they have all stopped.
struct StateRecorderService: Service {
    let store: StateStore
    let logger: Logger
    /// How long a write waits for company: the most history a power cut can lose.
    static let interval: Duration = .milliseconds(100)

    func run() async throws {
        await withGracefulShutdownHandler {
            while await store.waitForWrites() {
                // Real time, not the house's clock: this batches disk writes, it is no time logic.
                try? await Task.sleep(for: Self.interval)
                await store.commit(logger: logger)
            }
        } onGracefulShutdown: {
            store.stopWaiting()
        }
        // The last one: the shutdown waits for it.
        await store.commit(logger: logger)
        store.stopCommitting()
    }
}
