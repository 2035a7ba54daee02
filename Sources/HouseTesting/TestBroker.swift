import HouseBroker

/// Runs `body` with a fresh `HouseBroker` on 127.0.0.1 and a free port, shutting it down afterwards
/// (also when `body` throws).
///
/// `configure` may adjust the configuration (password file, ACL, limits); the port stays 0 unless set.
@discardableResult
public func withTestBroker<T: Sendable>(
    configure: (inout HouseBroker.Configuration) -> Void = { _ in },
    _ body: (HouseBroker) async throws -> T
) async throws -> T {
    var configuration = HouseBroker.Configuration(host: "127.0.0.1", port: 0)
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
