import ServiceLifecycle

/// Feeds systemd's watchdog (`WatchdogSec=`) on the real clock while the controller runs and says
/// `STOPPING=1` as soon as a graceful shutdown starts. Outside systemd it does nothing.
struct SystemdService: Service {
    let notifier: SystemdNotifier

    func run() async throws {
        guard notifier.isEnabled else {
            try? await gracefulShutdown()
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await notifier.feedWatchdog(clock: ContinuousClock()) }
            try? await gracefulShutdown()
            notifier.stopping()
            group.cancelAll()
        }
    }
}
