/// The messages matching one subscription filter, as an `AsyncSequence`. It ends when the
/// subscription is unsubscribed or the client disconnects, and throws `subscriptionRejected` if a
/// re-subscription after reconnect is refused. Iterate it from one task at a time.
public struct MQTTSubscription: AsyncSequence, Sendable {
    public typealias Element = MQTTMessage

    let id: UInt64
    /// The topic filter subscribed to.
    public let filter: String
    /// The QoS and (MQTT 5) options asked for.
    public let options: MQTTSubscribeOptions
    /// The QoS asked for.
    public var requestedQoS: MQTTQoS { options.qos }
    /// The QoS the broker granted in its SUBACK; nil when subscribed while offline.
    public let grantedQoS: MQTTQoS?
    let stream: AsyncThrowingStream<MQTTMessage, any Error>

    /// Iterates the subscription's messages.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<MQTTMessage, any Error>.AsyncIterator

        public mutating func next() async throws -> MQTTMessage? { try await base.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }
}
