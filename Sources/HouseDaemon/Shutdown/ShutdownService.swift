import ServiceLifecycle

/// Starts the shutdown deadline the moment a graceful shutdown begins, whatever began it (a
/// signal, `shutdown()`, a service that ended). Last in the service list, so the first told.
struct ShutdownService: Service {
    let deadline: ShutdownDeadline

    func run() async throws {
        try? await gracefulShutdown()
        deadline.begin()
    }
}
