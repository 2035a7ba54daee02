import HouseCore

/// An `MQTTPublisher` that records messages instead of sending them.
public actor FakePublisher: MQTTPublisher {
    /// One published message.
    public struct Message: Sendable, Equatable {
        public var topic: String
        public var payload: String
        public var retain: Bool

        public init(topic: String, payload: String, retain: Bool = false) {
            self.topic = topic
            self.payload = payload
            self.retain = retain
        }
    }

    public private(set) var messages: [Message] = []

    public init() {}

    public func publish(topic: String, payload: String, retain: Bool) async throws {
        messages.append(Message(topic: topic, payload: payload, retain: retain))
    }
}
