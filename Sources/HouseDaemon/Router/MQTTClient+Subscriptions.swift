import HouseMQTT
import Logging
import Signals

extension MQTTClient {
    /// Unsubscribes each of `subscriptions`, waiting at most `limit` in all for the broker's
    /// answers: a broker that stopped answering must not hold a shutdown.
    func unsubscribe(_ subscriptions: [MQTTSubscription], within limit: Duration) async {
        _ = await withTimeLimit(limit) {
            for subscription in subscriptions { try? await self.unsubscribe(subscription) }
        }
    }
}

extension MQTTSubscription {
    /// Waits until a subscription whose messages go to a handler ends; a re-subscription the
    /// broker refused (its ACL) ends only this topic, and is logged with `what` it was for.
    func awaitEnd(logger: Logger, what: String) async {
        do {
            for try await _ in self {}
        } catch {
            logger.error("subscription to \(filter) (\(what)) ended: \(error); check the broker's ACL for this user")
        }
    }
}
