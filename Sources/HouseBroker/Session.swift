import NIOCore

/// A message on its way to one client.
struct OutgoingMessage {
    var topic: String
    var payload: ByteBuffer
    var qos: HouseBroker.QoS
    var retain: Bool
    /// MQTT 5: what travels with the message (nil when nothing does), shared by every copy.
    var properties: MessageProperties? = nil
    /// MQTT 5: the identifiers of the client's subscriptions it matched.
    var subscriptionIdentifiers: [Int] = []

    /// Bytes counted against a client's queue budget: topic, payload and MQTT 5 properties.
    var size: Int { topic.utf8.count + payload.readableBytes + (properties?.encodedForwarded.readableBytes ?? 0) }
}

/// A QoS 1/2 message sent to a client and not yet fully acknowledged.
struct InflightMessage {
    enum Stage { case awaitingPuback, awaitingPubrec, awaitingPubcomp }
    var packetID: UInt16
    var message: OutgoingMessage
    var stage: Stage
}

/// The server side of an MQTT session (MQTT 3.1.1 section 4.1, MQTT 5 section 4.1); lives on the
/// broker's event loop.
package final class Session {
    package let clientID: String
    /// Seconds the session outlives its connection: 0 ends it with the connection (clean session
    /// 1 of 3.1.1), `UInt32.max` never ends it (clean session 0 of 3.1.1).
    package var expiryInterval: UInt32
    package var username: String?
    package var keepAlive: Int = 0
    /// The version of the client's latest connection.
    package var protocolVersion: MQTTProtocolVersion = .v311
    /// Subscriptions by filter (`$share/...` ones included); change it only through the methods below.
    package private(set) var subscriptions: [String: HouseBroker.Subscription] = [:]
    /// Counted memory of `subscriptions` (see `SubscriptionCost`).
    private(set) var subscriptionBytes = 0
    var connection: MQTTConnection?
    /// Sent and not yet acknowledged; change it only through the methods below.
    private(set) var inflight = CircularBuffer<InflightMessage>()
    /// Topic and payload bytes of `inflight`.
    private(set) var inflightBytes = 0
    /// Messages waiting to be sent, in order; change it only through the methods below.
    private(set) var queue = CircularBuffer<OutgoingMessage>()
    /// Topic and payload bytes waiting in `queue`.
    private(set) var queuedBytes = 0
    /// QoS 1/2 messages waiting in `queue`.
    private(set) var queuedReliable = 0
    /// No queued message expires before this (nil: none has an expiry interval), so that a full
    /// queue is searched for expired messages only when one may be there.
    private var earliestExpiry: NIODeadline?
    /// QoS 2 packet ids received and answered with PUBREC, waiting for PUBREL.
    var incomingQoS2: Set<UInt16> = []
    package var droppedCount = 0
    private var lastPacketID: UInt16 = 0
    /// Ends the session when `expiryInterval` has passed without a connection.
    var expiryTimer: Scheduled<Void>?
    /// While the session is offline and counted so (`BrokerCore.wentOffline(_:)`): its entry's
    /// number in `BrokerCore.offlineOrder`.
    var offlineNumber: UInt64?
    /// MQTT 5: a will waiting for its delay interval (or the session's end) after the connection
    /// ended, and the timer that publishes it. A new connection to the session cancels it.
    var pendingWill: WillMessage?
    var willTimer: Scheduled<Void>?
    /// Whether an MQTT 5 will waits for its delay interval.
    package var hasPendingWill: Bool { pendingWill != nil }

    init(clientID: String, expiryInterval: UInt32) {
        self.clientID = clientID
        self.expiryInterval = expiryInterval
    }

    /// Whether the session ends with its connection (clean session 1, or an expiry interval of 0).
    package var cleanSession: Bool { expiryInterval == 0 }

    /// Adds or replaces the subscription to `filter`; returns the counted bytes it added (none for
    /// new options on a filter already held) and whether it was held before.
    func subscribe(_ filter: String, _ subscription: HouseBroker.Subscription) -> (bytes: Int, existed: Bool) {
        guard subscriptions.updateValue(subscription, forKey: filter) == nil else { return (0, true) }
        let cost = SubscriptionCost.of(filter: filter)
        subscriptionBytes += cost
        return (cost, false)
    }

    /// Removes the subscription to `filter`; returns the counted bytes freed, nil when none was held.
    func unsubscribe(_ filter: String) -> Int? {
        guard subscriptions.removeValue(forKey: filter) != nil else { return nil }
        let cost = SubscriptionCost.of(filter: filter)
        subscriptionBytes -= cost
        return cost
    }

    /// Removes every subscription; returns their filters and the counted bytes freed.
    func unsubscribeAll() -> (filters: [String], bytes: Int) {
        let freed = (Array(subscriptions.keys), subscriptionBytes)
        subscriptions.removeAll()
        subscriptionBytes = 0
        return freed
    }

    /// Topic and payload bytes this session holds: queued and in flight.
    var heldBytes: Int { queuedBytes + inflightBytes }

    func addInflight(_ entry: InflightMessage) {
        inflight.append(entry)
        inflightBytes += entry.message.size
    }

    /// Where the in-flight message with packet identifier `id` is, if any.
    func inflightIndex(of id: UInt16) -> CircularBuffer<InflightMessage>.Index? {
        inflight.firstIndex { $0.packetID == id }
    }

    /// Removes the in-flight message at `index`; returns its size.
    func removeInflight(at index: CircularBuffer<InflightMessage>.Index) -> Int {
        let size = inflight.remove(at: index).message.size
        inflightBytes -= size
        return size
    }

    func setInflightStage(at index: CircularBuffer<InflightMessage>.Index, _ stage: InflightMessage.Stage) {
        inflight[index].stage = stage
    }

    func enqueue(_ message: OutgoingMessage) {
        if let expiresAt = message.properties?.expiresAt { earliestExpiry = min(earliestExpiry ?? expiresAt, expiresAt) }
        queue.append(message)
        queuedBytes += message.size
        if message.qos != .atMostOnce { queuedReliable += 1 }
    }

    func dequeue() -> OutgoingMessage? {
        guard let message = queue.popFirst() else { return nil }
        queuedBytes -= message.size
        if message.qos != .atMostOnce { queuedReliable -= 1 }
        return message
    }

    /// Drops queued QoS 0 messages (they are not kept for offline clients); returns the bytes freed.
    func removeQueuedQoS0() -> Int {
        removeQueued { $0.qos == .atMostOnce }.bytes
    }

    /// Drops queued messages whose message expiry interval has passed at `now` (MQTT-3.3.2-5);
    /// returns how many and their bytes.
    func removeExpired(at now: NIODeadline) -> (count: Int, bytes: Int) {
        guard let earliestExpiry, earliestExpiry <= now else { return (0, 0) }
        let removed = removeQueued { $0.properties?.isExpired(at: now) == true }
        self.earliestExpiry = queue.lazy.compactMap { $0.properties?.expiresAt }.min()
        return removed
    }

    private func removeQueued(where shouldRemove: (OutgoingMessage) -> Bool) -> (count: Int, bytes: Int) {
        let (count, bytes) = (queue.count, queuedBytes)
        queue.removeAll(where: shouldRemove)
        queuedBytes = queue.reduce(0) { $0 + $1.size }
        queuedReliable = queue.reduce(0) { $0 + ($1.qos == .atMostOnce ? 0 : 1) }
        return (count - queue.count, bytes - queuedBytes)
    }

    /// The next packet identifier not in use by an in-flight message.
    func nextPacketID() -> UInt16 {
        while true {
            lastPacketID = lastPacketID == UInt16.max ? 1 : lastPacketID + 1
            let candidate = lastPacketID
            if inflight.isEmpty || !inflight.contains(where: { $0.packetID == candidate }) { return candidate }
        }
    }

    /// Whether a network connection is attached now.
    package var isConnected: Bool { connection != nil }
    /// QoS 1/2 messages sent and not yet fully acknowledged.
    package var inflightCount: Int { inflight.count }
    /// Messages waiting to be sent.
    package var queuedCount: Int { queue.count }
    /// The peer address, when connected.
    package var remoteAddress: String? { connection?.remoteAddress }
}
