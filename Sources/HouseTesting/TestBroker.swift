import HouseBroker

/// Runs `body` with a fresh `HouseBroker` on 127.0.0.1 and a free port, shutting it down afterwards
/// (also when `body` throws).
///
/// `configure` may adjust the configuration (password file, ACL, limits); the port stays 0 and the
/// connect timeout 60 s unless set.
@discardableResult
public func withTestBroker<T: Sendable>(
    configure: (inout HouseBroker.Configuration) -> Void = { _ in },
    _ body: (HouseBroker) async throws -> T
) async throws -> T {
    var configuration = HouseBroker.Configuration(host: "127.0.0.1", port: 0)
    // A test on a busy machine may open a socket and send its CONNECT seconds later: only a test
    // of the connect timeout itself sets a short one.
    configuration.connectTimeout = .seconds(60)
    configure(&configuration)
    let broker = try await HouseBroker.start(configuration)
    do {
        let result = try await body(broker)
        await broker.shutdown()
        return result
    } catch {
        await broker.shutdown()
        throw error
    }
}
