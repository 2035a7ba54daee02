import HouseMQTT
import Logging
import ServiceLifecycle

/// Runs the MQTT client (connect, reconnect with backoff, offline queue) until graceful shutdown;
/// then publishes the node's `offline` status itself, since a clean DISCONNECT suppresses the last
/// will, and disconnects.
struct MQTTConnectionService: Service {
    let client: MQTTClient
    let statusTopic: String
    let logger: Logger

    func run() async throws {
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await client.run() }
            try? await gracefulShutdown()
            if client.connectionState.isConnected {
                do {
                    try await client.publish(to: statusTopic, payload: "offline", qos: .atLeastOnce, retain: true,
                                             timeToLive: .seconds(2))
                } catch {
                    logger.warning("could not publish offline status: \(error)")
                }
            }
            await client.disconnect()
            group.cancelAll()
            try? await group.waitForAll()
        }
    }
}
