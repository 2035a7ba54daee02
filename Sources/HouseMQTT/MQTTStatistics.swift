/// Counters of what the client did since it was created.
public struct MQTTStatistics: Sendable, Hashable {
    /// Successful CONNACKs (first connect and every reconnect).
    public var connects = 0
    /// Connect attempts that failed (refused, TLS, timeout, network).
    public var failedConnectAttempts = 0
    /// Established connections that were lost without our DISCONNECT.
    public var connectionLosses = 0
    /// Messages handed to libmosquitto for sending (including flushed ones).
    public var messagesSent = 0
    /// QoS 1/2 messages the broker refused: an MQTT 5 PUBACK or PUBREC with a failure reason code
    /// (0x80 and above: an ACL, a quota). Counted in `messagesSent` too, never delivered.
    public var messagesRefused = 0
    /// Messages put in the offline queue.
    public var messagesQueued = 0
    /// Queued messages sent after a reconnect.
    public var messagesFlushed = 0
    /// Queued messages dropped because their time to live ran out.
    public var messagesExpired = 0
    /// Messages received from the broker.
    public var messagesReceived = 0
    /// Messages currently waiting in the offline queue.
    public var offlineQueueDepth = 0
    /// Messages that waited for room in the in-flight window (`MQTTConfiguration.maximumInFlight`).
    public var messagesHeld = 0
    /// QoS 1/2 messages handed to libmosquitto and not yet acknowledged by the broker, now.
    public var inFlight = 0
    /// Messages waiting for room in the in-flight window now.
    public var heldDepth = 0
    /// Times `waitForRoom` waited for the backlog of held messages to shrink.
    public var backlogWaits = 0

    public init() {}
}
