import HouseBroker

extension HouseBroker {
    /// Everything the broker knows right now.
    public func snapshot() async -> Snapshot {
        let core = self.core
        return try! await loop.submit { core.value.makeSnapshot() }.get()
    }

    /// Clients with a live connection, by client id.
    public func connectedClients() async -> [ClientInfo] { await snapshot().connectedClients }
    /// Recently received messages, oldest first.
    public func receivedMessages() async -> [ReceivedMessage] { await snapshot().received }
    /// The retained store, by topic.
    public func retainedMessages() async -> [String: RetainedMessage] { await snapshot().retained }
    /// The broker's counters.
    public func statistics() async -> Statistics { await snapshot().statistics }

    /// Waits until `predicate` holds for the broker's state (checked now and after every event),
    /// returning the snapshot that satisfied it, or throws `HouseBrokerError.timedOut`.
    @discardableResult
    public func waitUntil(timeout: Duration = .seconds(10), _ what: String = "a broker condition",
                          _ predicate: @escaping @Sendable (Snapshot) -> Bool) async throws -> Snapshot {
        try await waitForEvent(timeout: timeout, what) { core in
            let snapshot = core.makeSnapshot()
            return predicate(snapshot) ? snapshot : nil
        }
    }

    /// Waits until a client with `clientID` is connected.
    @discardableResult
    public func waitForClient(_ clientID: String, timeout: Duration = .seconds(10)) async throws -> ClientInfo {
        try await waitUntil(timeout: timeout, "client '\(clientID)' to connect") {
            $0.sessions[clientID]?.isConnected == true
        }.sessions[clientID]!
    }

    /// Waits until no client with `clientID` is connected.
    public func waitForDisconnect(_ clientID: String, timeout: Duration = .seconds(10)) async throws {
        try await waitUntil(timeout: timeout, "client '\(clientID)' to disconnect") {
            $0.sessions[clientID]?.isConnected != true
        }
    }

    /// Waits until `clientID` holds a subscription to `filter`.
    public func waitForSubscription(clientID: String, filter: String, timeout: Duration = .seconds(10)) async throws {
        try await waitUntil(timeout: timeout, "'\(clientID)' to subscribe to \(filter)") {
            $0.sessions[clientID]?.subscriptions[filter] != nil
        }
    }

    /// Waits until at least `count` messages on `topic` have been received; returns them.
    @discardableResult
    public func waitForMessages(on topic: String, count: Int = 1, timeout: Duration = .seconds(10)) async throws -> [ReceivedMessage] {
        try await waitUntil(timeout: timeout, "\(count) message(s) on \(topic)") {
            $0.received(on: topic).count >= count
        }.received(on: topic)
    }
}
