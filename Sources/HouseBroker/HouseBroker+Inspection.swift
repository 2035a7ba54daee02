import NIOCore

extension HouseBroker {
    /// A PUBLISH the broker received from a client (or a will it published for one).
    public struct ReceivedMessage: Sendable, CustomStringConvertible {
        /// The publishing client.
        public let clientID: String
        public let topic: String
        let buffer: ByteBuffer
        public let qos: QoS
        public let retain: Bool
        /// Whether this is a will message published on the client's behalf.
        public let isWill: Bool

        /// The payload bytes.
        public var payload: [UInt8] { Array(buffer.readableBytesView) }
        /// The payload decoded as UTF-8 (invalid sequences repaired).
        public var payloadString: String { String(decoding: buffer.readableBytesView, as: UTF8.self) }

        public var description: String {
            "\(clientID) -> \(topic) \(qos)\(retain ? " retained" : "")\(isWill ? " will" : ""): \(payloadString)"
        }
    }

    /// A retained message as stored.
    public struct RetainedMessage: Sendable {
        public let topic: String
        let buffer: ByteBuffer
        public let qos: QoS
        /// The payload bytes.
        public var payload: [UInt8] { Array(buffer.readableBytesView) }
        /// The payload decoded as UTF-8.
        public var payloadString: String { String(decoding: buffer.readableBytesView, as: UTF8.self) }
    }

    /// A session (connected, or offline with clean session 0) as seen by the broker.
    public struct ClientInfo: Sendable {
        public let clientID: String
        /// Whether a network connection is attached now.
        public let isConnected: Bool
        /// The user name given at CONNECT, if any.
        public let username: String?
        public let cleanSession: Bool
        /// Keepalive in seconds as asked at CONNECT (0: none).
        public let keepAlive: Int
        /// Topic filters with their granted QoS.
        public let subscriptions: [String: QoS]
        /// QoS 1/2 messages sent and not yet fully acknowledged.
        public let inflightCount: Int
        /// Messages waiting to be sent.
        public let queuedCount: Int
        /// Messages dropped for this client because its queue was full.
        public let droppedCount: Int
        /// The peer address, when connected.
        public let remoteAddress: String?
    }

    /// Counters since the broker was created.
    public struct Statistics: Sendable, Equatable {
        /// PUBLISH packets received from clients.
        public var messagesReceived = 0
        /// PUBLISH packets sent to clients (including redeliveries).
        public var messagesSent = 0
        /// Messages dropped because a client's queue was full.
        public var messagesDropped = 0
        /// Publishes dropped because the ACL refused them.
        public var publishesDenied = 0
        /// Connections accepted with CONNACK 0.
        public var connectionsAccepted = 0
        /// Connections refused with a non-zero CONNACK.
        public var connectionsRefused = 0
        /// Connections closed because of malformed or out-of-order packets.
        public var protocolErrors = 0
        /// Publishes (and wills) dropped because their topic passes `maximumTopicLevels` or
        /// `maximumTopicLength`.
        public var publishesRefused = 0
        /// Subscriptions refused (SUBACK 0x80) because of a topic or subscription limit.
        public var subscriptionsRefused = 0
        /// Retained messages delivered but not retained because of `maximumRetainedBytes`.
        public var retainedRefused = 0

        /// Estimated memory of all subscriptions now (bounded by `maximumSubscriptionBytes`).
        public var subscriptionBytes = 0
        /// Topic and payload bytes queued or in flight for all clients now
        /// (bounded by `maximumTotalQueuedBytes`).
        public var heldBytes = 0
        /// Topic and payload bytes of the retained messages now (bounded by `maximumRetainedBytes`).
        public var retainedBytes = 0
        /// Nodes of the subscription tree now, the root included.
        public var subscriptionTreeNodes = 0
    }

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
