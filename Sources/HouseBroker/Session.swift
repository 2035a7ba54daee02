import NIOCore

/// A message on its way to one client.
struct OutgoingMessage {
    var topic: String
    var payload: ByteBuffer
    var qos: HouseBroker.QoS
    var retain: Bool

    /// Bytes counted against a client's queue budget.
    var size: Int { topic.utf8.count + payload.readableBytes }
}

/// A QoS 1/2 message sent to a client and not yet fully acknowledged.
struct InflightMessage {
    enum Stage { case awaitingPuback, awaitingPubrec, awaitingPubcomp }
    var packetID: UInt16
    var message: OutgoingMessage
    var stage: Stage
}

/// The server side of an MQTT session (MQTT 3.1.1 section 4.1); lives on the broker's event loop.
package final class Session {
    package let clientID: String
    package var cleanSession: Bool
    package var username: String?
    package var keepAlive: Int = 0
    /// Granted QoS by filter; change it only through the methods below.
    package private(set) var subscriptions: [String: HouseBroker.QoS] = [:]
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
    /// QoS 2 packet ids received and answered with PUBREC, waiting for PUBREL.
    var incomingQoS2: Set<UInt16> = []
    package var droppedCount = 0
    private var lastPacketID: UInt16 = 0

    init(clientID: String, cleanSession: Bool) {
        self.clientID = clientID
        self.cleanSession = cleanSession
    }

    /// Adds or replaces the subscription to `filter`; returns the counted bytes it added (none for
    /// a new QoS on a filter already held).
    func subscribe(_ filter: String, qos: HouseBroker.QoS) -> Int {
        guard subscriptions.updateValue(qos, forKey: filter) == nil else { return 0 }
        let cost = SubscriptionCost.of(filter: filter)
        subscriptionBytes += cost
        return cost
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
        let before = queuedBytes
        queue.removeAll { $0.qos == .atMostOnce }
        queuedBytes = queue.reduce(0) { $0 + $1.size }
        return before - queuedBytes
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
