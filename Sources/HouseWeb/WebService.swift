import HouseCore
import HouseDaemon
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Signals

/// Serves the page (`WebApp`) while the controller runs: a service of the controller's group,
/// started after the command bus and stopped before it. The live views end at the shutdown. A
/// listener that cannot start (the port is taken) is logged, and the controller runs on without
/// the page.
public struct WebService<C: WallClock>: Service {
    public let app: WebApp<C>
    /// Told the port once the listener is up (the port chosen when the settings say 0).
    let onListening: @Sendable (Int) -> Void

    public init(app: WebApp<C>, onListening: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.app = app
        self.onListening = onListening
    }

    public func run() async throws {
        let settings = app.settings
        let logger = app.controller.logger
        let login = app.sessions.requiresLogin
        let application = Application(
            router: app.router(),
            configuration: .init(address: .hostname(settings.bind, port: settings.port), serverName: "housectl"),
            onServerRunning: { [onListening] channel in
                let port = channel.localAddress?.port ?? settings.port
                let host = settings.bind.contains(":") ? "[\(settings.bind)]" : settings.bind
                logger.info("web: the page is on http://\(host):\(port)/\(login ? " (log in with a user of the password file)" : "")")
                onListening(port)
            },
            logger: Self.quiet(logger))
        do {
            try await application.run()
        } catch {
            // The relays matter more than the page: the controller runs on without it.
            let reason = (error as? IOError)?.description ?? "\(error)"
            logger.error("web: \(WebError.cannotListen(address: settings.bind, port: settings.port, reason: reason)); the controller runs on without the page")
            try? await gracefulShutdown()
        }
    }

    /// Hummingbird's own per-request lines only when debugging.
    static func quiet(_ logger: Logger) -> Logger {
        var l = logger
        l.logLevel = max(logger.logLevel, .notice)
        return l
    }
}
