extension MQTTClient {
    /// Publishes `message`.
    ///
    /// Connected: QoS 0 returns once written to the socket, QoS 1/2 once the broker acknowledged
    /// it (PUBACK / PUBCOMP). Disconnected: the message joins the offline queue (returns
    /// `.queued`) and is sent in order after the next CONNACK unless `timeToLive` (default
    /// `configuration.offlineMessageTimeToLive`) runs out first.
    ///
    /// - Throws: `invalidTopic` for an empty topic or wildcards, `payloadTooLarge`,
    ///   `offlineQueueFull`, `notConnected` (queue disabled), `clientClosed`, and for QoS 0
    ///   `connectionLost` when the connection drops before the message was written.
    @discardableResult
    public func publish(_ message: MQTTMessage, timeToLive: Duration? = nil) async throws -> MQTTDelivery {
        try MQTTTopic.validateTopicName(message.topic)
        guard message.payload.count <= configuration.maximumPayloadSize else {
            throw MQTTError.payloadTooLarge(topic: message.topic, size: message.payload.count, limit: configuration.maximumPayloadSize)
        }
        let ttl = timeToLive ?? configuration.offlineMessageTimeToLive
        let now = clock.now()
        let endpoint = self.endpoint
        let sendNow: Bool = try state.withLock { s in
            switch s.phase {
            case .closing, .closed: throw MQTTError.clientClosed
            case .connected: return true
            case .idle, .connecting, .disconnected:
                try s.enqueue(message, timeToLive: ttl, now: now, endpoint: endpoint)
                return false
            }
        }
        guard sendNow else { return .queued }

        let (rc, mid) = handle.publish(message)
        if rc == MosquittoHandle.noConnection {
            try state.withLock { s in
                if s.isClosing { throw MQTTError.clientClosed }
                try s.enqueue(message, timeToLive: ttl, now: now, endpoint: endpoint)
            }
            return .queued
        }
        guard rc == MosquittoHandle.success else {
            throw MQTTError.operationFailed(call: "mosquitto_publish(\(message.topic))", reason: MosquittoHandle.describe(rc))
        }
        state.withLock { $0.statistics.messagesSent += 1 }
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            var fx = Effects()
            state.withLock { s in s.register(mid, .publish(message.qos, c), &fx) }
            fx.run()
        }
        return .delivered
    }

    /// Publishes `payload` to `topic`; see `publish(_:timeToLive:)`.
    @discardableResult
    public func publish(
        to topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false,
        timeToLive: Duration? = nil
    ) async throws -> MQTTDelivery {
        try await publish(MQTTMessage(topic: topic, payload: payload, qos: qos, retain: retain), timeToLive: timeToLive)
    }

    /// Publishes a UTF-8 text payload to `topic`; see `publish(_:timeToLive:)`.
    @discardableResult
    public func publish(
        to topic: String, payload: String, qos: MQTTQoS = .atMostOnce, retain: Bool = false,
        timeToLive: Duration? = nil
    ) async throws -> MQTTDelivery {
        try await publish(MQTTMessage(topic: topic, string: payload, qos: qos, retain: retain), timeToLive: timeToLive)
    }
}
