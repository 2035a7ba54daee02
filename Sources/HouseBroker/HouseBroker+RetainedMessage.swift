import NIOCore

extension HouseBroker {
    /// A retained message as stored.
    public struct RetainedMessage: Sendable {
        public let topic: String
        let buffer: ByteBuffer
        public let qos: QoS
        let messageProperties: MessageProperties?
        /// Bytes counted against `maximumRetainedBytes`: topic, payload and MQTT 5 properties.
        var size: Int { topic.utf8.count + buffer.readableBytes + (messageProperties?.encodedForwarded.readableBytes ?? 0) }
        /// The MQTT 5 properties stored with it (with its message expiry interval as published).
        public var properties: MQTTProperties? { messageProperties?.asPublished }
        /// The payload bytes.
        public var payload: [UInt8] { Array(buffer.readableBytesView) }
        /// The payload decoded as UTF-8.
        public var payloadString: String { String(decoding: buffer.readableBytesView, as: UTF8.self) }
    }
}
