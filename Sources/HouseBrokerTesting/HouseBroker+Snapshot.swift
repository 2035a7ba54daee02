import HouseBroker

extension HouseBroker {
    /// Everything the inspection API can see, taken at one instant.
    public struct Snapshot: Sendable {
        /// All sessions by client id, connected or not.
        public let sessions: [String: ClientInfo]
        /// Retained messages by topic.
        public let retained: [String: RetainedMessage]
        /// Recently received messages, oldest first (bounded by `recordedMessageLimit`).
        public let received: [ReceivedMessage]
        public let statistics: Statistics
        /// Whether the broker is listening.
        public let isRunning: Bool

        /// The sessions with a live connection.
        public var connectedClients: [ClientInfo] { sessions.values.filter(\.isConnected).sorted { $0.clientID < $1.clientID } }
        /// Received messages on `topic`.
        public func received(on topic: String) -> [ReceivedMessage] { received.filter { $0.topic == topic } }
    }
}

extension BrokerCore {
    /// Everything the broker knows right now; call on the broker's loop.
    func makeSnapshot() -> HouseBroker.Snapshot {
        var statistics = self.statistics
        statistics.subscriptionBytes = subscriptionBytes
        statistics.heldBytes = heldBytes
        statistics.retainedBytes = retainedBytes
        statistics.subscriptionTreeNodes = subscriptionTreeNodes
        statistics.offlineSessions = offlineSessionCount
        return HouseBroker.Snapshot(
            sessions: sessions.mapValues(HouseBroker.ClientInfo.init), retained: retained, received: Array(received),
            statistics: statistics, isRunning: serverChannel != nil)
    }
}
