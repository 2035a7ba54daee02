import HouseMQTT
import Logging
import ServiceLifecycle
import Signals

/// Runs the MQTT client (connect, reconnect with backoff, offline queue) until graceful shutdown;
/// then publishes the node's `offline` status itself, since a clean DISCONNECT suppresses the last
/// will, and disconnects. Both on the shutdown deadline: the broker may be gone at that very
/// moment (a QoS 1 publish then waits for a PUBACK that only a reconnect could bring), so
/// `offline` is best effort (at most `offlineWait`) and the disconnect takes what is left.
struct MQTTConnectionService: Service {
    let client: MQTTClient
    let statusTopic: String
    let deadline: ShutdownDeadline
    let logger: Logger
    /// The most the `offline` status waits for its PUBACK.
    static let offlineWait: Duration = .seconds(1)

    func run() async throws {
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await client.run() }
            try? await gracefulShutdown()
            if client.connectionState.isConnected {
                await publishOffline(within: deadline.remaining(atMost: Self.offlineWait))
            }
            await client.disconnect(within: deadline.remaining())
            group.cancelAll()
            try? await group.waitForAll()
        }
    }

    /// Publishes `offline` (retained, QoS 1) and waits for the PUBACK at most `limit`; after that
    /// the message stays with libmosquitto, which sends it should the connection still work.
    private func publishOffline(within limit: Duration) async {
        let delivered: Bool?? = await withTimeLimit(limit) { [client, statusTopic, logger] in
            do {
                try await client.publish(to: statusTopic, payload: "offline", qos: .atLeastOnce, retain: true,
                                         timeToLive: .seconds(2))
                return true
            } catch is CancellationError {
                return nil
            } catch {
                logger.warning("could not publish offline status: \(error)")
                return false
            }
        }
        if delivered == nil || delivered! == nil {
            logger.warning("offline status not acknowledged within \(limit): the broker does not answer; stopping without it")
        }
    }
}
