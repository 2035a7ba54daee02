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
    ///
    /// With `waitForAcknowledgement: false`, a connected client returns `.sent` as soon as
    /// libmosquitto has the message: delivery is still at least once for QoS 1/2 (libmosquitto
    /// sends it again until acknowledged, after a reconnect too), but nothing waits in line.
    @discardableResult
    public func publish(_ message: MQTTMessage, timeToLive: Duration? = nil,
                        waitForAcknowledgement: Bool = true) async throws -> MQTTDelivery {
        switch try hand(message, timeToLive: timeToLive, attended: waitForAcknowledgement) {
        case .queued: return .queued
        case .sent: return .sent
        case .awaiting(let mid, let ticket):
            try await awaitAcknowledgement(of: mid, qos: message.qos, sentWith: ticket)
            return .delivered
        }
    }

    /// Publishes `message` without waiting: `.sent` once libmosquitto has it (delivery is still
    /// at least once for QoS 1/2: libmosquitto sends it again until acknowledged, after a
    /// reconnect too), `.queued` while offline. Callable from any thread, the network thread's
    /// message handlers included (see `subscribe(to:qos:onMessage:)`), where the packet is
    /// written as soon as the handler returns, with no thread to wake.
    ///
    /// - Throws: as `publish(_:timeToLive:waitForAcknowledgement:)`.
    @discardableResult
    public func send(_ message: MQTTMessage, timeToLive: Duration? = nil) throws -> MQTTDelivery {
        switch try hand(message, timeToLive: timeToLive, attended: false) {
        case .queued: return .queued
        case .sent, .awaiting: return .sent
        }
    }

    /// What became of a message handed to libmosquitto (or to the offline queue).
    private enum Handed {
        case queued, sent
        /// Sent; its acknowledgement is to be awaited (registered by the waiter).
        case awaiting(mid: Int32, ticket: AckTicket)
    }

    /// Hands `message` to libmosquitto, or to the offline queue while disconnected. `attended`:
    /// the caller waits for its acknowledgement; otherwise the acknowledgement is consumed quietly.
    private func hand(_ message: MQTTMessage, timeToLive: Duration?, attended: Bool) throws -> Handed {
        try MQTTError.checkTopicName(message.topic)
        guard message.payload.count <= configuration.maximumPayloadSize else {
            throw MQTTError.payloadTooLarge(topic: message.topic, size: message.payload.count, limit: configuration.maximumPayloadSize)
        }
        let ttl = timeToLive ?? configuration.offlineMessageTimeToLive
        let now = clock.now()
        let endpoint = self.endpoint
        let ticket: AckTicket? = try state.withLock { s in
            switch s.phase {
            case .closing, .closed: throw MQTTError.clientClosed
            case .connected: return s.ticket
            case .idle, .connecting, .disconnected:
                try s.enqueue(message, timeToLive: ttl, now: now, endpoint: endpoint)
                return nil
            }
        }
        guard let ticket else { return .queued }

        let (rc, mid) = handle.publish(message)
        if rc == MosquittoHandle.noConnection {
            // The connection went just now. libmosquitto has kept a QoS 1/2 message in its own
            // queue (under `mid`) and resends it after the next CONNACK: queuing a copy here too
            // would deliver it twice (a pulse or a toggle would then act twice).
            if message.qos != .atMostOnce {
                var fx = Effects()
                state.withLock { s in
                    s.statistics.messagesQueued += 1
                    s.register(mid, .ignoreRetried, sentWith: ticket, &fx)
                }
                fx.run()
                return .queued
            }
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
        guard attended else {
            var fx = Effects()
            state.withLock { s in s.register(mid, .unattended(message.qos), sentWith: ticket, &fx) }
            fx.run()
            return .sent
        }
        return .awaiting(mid: mid, ticket: ticket)
    }

    /// Waits for the PUBACK/PUBCOMP of `mid` (for QoS 0: until written). Cancelling the waiting
    /// task throws `CancellationError`; the message itself stays with libmosquitto, which still
    /// delivers it (and resends it after a reconnect), so cancelling never loses it.
    private func awaitAcknowledgement(of mid: Int32, qos: MQTTQoS, sentWith ticket: AckTicket) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                var fx = Effects()
                state.withLock { s in
                    if Task.isCancelled {
                        s.register(mid, .unattended(qos), sentWith: ticket, &fx)
                        fx.add { c.resume(throwing: CancellationError()) }
                    } else {
                        s.register(mid, .publish(qos, c), sentWith: ticket, &fx)
                    }
                }
                fx.run()
            }
        } onCancel: {
            let waiter: AckWaiter? = state.withLock { s in
                guard case .publish? = s.pending[mid] else { return nil }
                // A late acknowledgement is then consumed quietly.
                return s.pending.updateValue(.unattended(qos), forKey: mid)
            }
            if case .publish(_, let c)? = waiter { c.resume(throwing: CancellationError()) }
        }
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
        timeToLive: Duration? = nil, waitForAcknowledgement: Bool = true
    ) async throws -> MQTTDelivery {
        try await publish(MQTTMessage(topic: topic, string: payload, qos: qos, retain: retain), timeToLive: timeToLive,
                          waitForAcknowledgement: waitForAcknowledgement)
    }
}
