import NIOCore

extension HouseBroker {
    /// A PUBLISH the broker received from a client (or a will it published for one), as recorded
    /// when `Configuration.recordedMessageLimit` is above 0 (HouseBrokerTesting reads them).
    public struct ReceivedMessage: Sendable, CustomStringConvertible {
        /// The publishing client.
        public let clientID: String
        public let topic: String
        let buffer: ByteBuffer
        public let qos: QoS
        public let retain: Bool
        /// Whether this is a will message published on the client's behalf.
        public let isWill: Bool
        let messageProperties: MessageProperties?

        /// The MQTT 5 properties that travel with the message (with its message expiry interval as
        /// published); nil when it has none (every MQTT 3.1.1 message).
        public var properties: MQTTProperties? { messageProperties?.asPublished }

        /// The payload bytes.
        public var payload: [UInt8] { Array(buffer.readableBytesView) }
        /// The payload decoded as UTF-8 (invalid sequences repaired).
        public var payloadString: String { String(decoding: buffer.readableBytesView, as: UTF8.self) }

        public var description: String {
            "\(clientID) -> \(topic) \(qos)\(retain ? " retained" : "")\(isWill ? " will" : ""): \(payloadString)"
        }
    }
}
