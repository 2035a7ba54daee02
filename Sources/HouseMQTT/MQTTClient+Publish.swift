import Logging

extension MQTTClient {
    /// Publishes `message`.
    ///
    /// Connected: QoS 0 returns once written to the socket, QoS 1/2 once the broker acknowledged
    /// it (PUBACK / PUBCOMP). Disconnected: the message joins the offline queue (returns
    /// `.queued`) and is sent in order after the next CONNACK unless `timeToLive` (default
    /// `configuration.offlineMessageTimeToLive`) or its message expiry interval runs out first;
    /// it then goes out with what is left of that interval.
    ///
    /// The message's `properties` are sent on an MQTT 5 connection and left out on a 3.1.1 one
    /// (no error: see `protocolVersion`); they are checked either way.
    ///
    /// - Throws: `invalidTopic` for an empty topic or wildcards, `payloadTooLarge`,
    ///   `invalidProperty`, `offlineQueueFull`, `notConnected` (queue disabled), `clientClosed`,
    ///   and for QoS 0 `connectionLost` (or `disconnectedByBroker`) when the connection drops
    ///   before the message was written.
    ///   Cancelling the waiting task throws `CancellationError`; the message itself is still
    ///   delivered (libmosquitto resends it until acknowledged), so cancelling never loses it.
    ///
    /// To publish without waiting, `send(_:timeToLive:)`.
    @discardableResult
    public func publish(_ message: MQTTMessage, timeToLive: Duration? = nil) async throws -> MQTTDelivery {
        let key = state.withLock { $0.makeID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<MQTTDelivery, any Error>) in
                do {
                    switch try hand(message, timeToLive: timeToLive, waiter: .publish(message.qos, key, c, topic: message.topic)) {
                    case .waiting: break
                    case .cancelled: c.resume(throwing: CancellationError())
                    case .done(let delivery): c.resume(returning: delivery)
                    }
                } catch {
                    c.resume(throwing: error)
                }
            }
        } onCancel: {
            stopWaiting(for: key)
        }
    }

    /// Publishes `message` without waiting: `.sent` once the client has it (delivery is still
    /// at least once for QoS 1/2: libmosquitto sends it again until acknowledged, after a
    /// reconnect too), `.queued` while offline. Callable from any thread, the network thread's
    /// message handlers included (see `subscribe(to:qos:onMessage:)`), where the packet is
    /// written before `send` returns, with no thread to wake.
    ///
    /// - Throws: as `publish(_:timeToLive:)`.
    @discardableResult
    public func send(_ message: MQTTMessage, timeToLive: Duration? = nil) throws -> MQTTDelivery {
        try send(message, timeToLive: timeToLive, waiter: .unattended(message.qos, topic: message.topic))
    }

    /// `send(_:timeToLive:)`, and then `acknowledged` with the broker's reason code when its
    /// acknowledgement comes (on the network thread; do not block there). On an MQTT 5 connection
    /// `noMatchingSubscribers` (0x10) says that nobody subscribed to the topic when the broker
    /// took the message, a failure (0x80 and above) that the broker refused it; on 3.1.1 it is
    /// always `success`. Not called for a message the client queued offline, nor when the client
    /// closes before the acknowledgement (a QoS 1/2 message libmosquitto keeps to resend after a
    /// reconnect, also returned as `.queued`, is answered after the resend); a QoS 0 message is
    /// answered `success` once written.
    @discardableResult
    public func send(_ message: MQTTMessage, acknowledged: @escaping @Sendable (MQTTReasonCode) -> Void) throws -> MQTTDelivery {
        try send(message, timeToLive: nil, waiter: .notify(message.qos, acknowledged))
    }

    /// Both `send`s: hands `message` over with `waiter` and returns without waiting.
    private func send(_ message: MQTTMessage, timeToLive: Duration?, waiter: AckWaiter) throws -> MQTTDelivery {
        switch try hand(message, timeToLive: timeToLive, waiter: waiter) {
        case .done(let delivery): return delivery
        case .waiting, .cancelled: return .sent
        }
    }

    /// What became of a message handed to the client.
    enum Handed {
        /// Its waiter is stored (with libmosquitto's message id, or with the held message) and
        /// is resumed when the acknowledgement comes.
        case waiting
        /// Sent or held, but its awaiting task was cancelled: nobody waits for it.
        case cancelled
        /// Settled at once (queued offline); nothing waits.
        case done(MQTTDelivery)
    }

    /// Hands `message` to libmosquitto, holds it behind the in-flight window, or queues it while
    /// disconnected. All under the client's lock, so no message overtakes another, and an
    /// acknowledgement (taken under that lock on the network thread) never comes before its
    /// waiter is stored.
    private func hand(_ message: MQTTMessage, timeToLive: Duration?, waiter: AckWaiter) throws -> Handed {
        try MQTTError.checkTopicName(message.topic)
        guard message.payload.count <= configuration.maximumPayloadSize else {
            throw MQTTError.payloadTooLarge(topic: message.topic, size: message.payload.count, limit: configuration.maximumPayloadSize)
        }
        if message.hasProperties { try message.properties.validate(topic: message.topic, payload: message.payload) }
        let ttl = timeToLive ?? configuration.offlineMessageTimeToLive
        let now = clock.now()
        let endpoint = self.endpoint
        // On the network thread (a message handler), what was queued is written once the lock
        // is let go: the state a command publishes leaves before the handler goes on.
        defer { handle.writeQueued() }
        var fx = ClientEffects()
        defer { fx.run() }
        return try state.withLock { s in
            switch s.phase {
            case .closing, .closed: throw MQTTError.clientClosed
            case .idle, .connecting, .disconnected:
                try s.enqueue(message, timeToLive: ttl, now: now, endpoint: endpoint)
                return .done(.queued)
            case .connected: break
            }
            // The cancellation handler takes this lock too: it either runs before (seen here) or
            // finds the waiter stored.
            var waiter = waiter
            var cancelled = false
            if case .publish(let qos, _, _, _) = waiter, Task.isCancelled {
                waiter = .unattended(qos, topic: message.topic)
                cancelled = true
            }
            if !s.held.isEmpty || (message.qos != .atMostOnce && s.pending.inFlight >= s.inFlightLimit) {
                s.held.append(ClientState.HeldMessage(message: message, waiter: waiter))
                s.statistics.messagesHeld += 1
                return cancelled ? .cancelled : .waiting
            }
            switch try transmit(message, waiter: waiter, in: &s, &fx) {
            case .waiting: return cancelled ? .cancelled : .waiting
            case .queued: return .done(.queued)
            case .noConnection:
                try s.enqueue(message, timeToLive: ttl, now: now, endpoint: endpoint)
                return .done(.queued)
            }
        }
    }

    /// What `transmit` did.
    enum Transmitted {
        /// libmosquitto has the message; `waiter` is registered under its id.
        case waiting
        /// The connection went just now and libmosquitto kept the QoS 1/2 message to resend after
        /// the next CONNACK; nobody waits for it.
        case queued
        /// The connection went just now and libmosquitto did not take the QoS 0 message.
        case noConnection
    }

    /// Hands `message` to libmosquitto under the client's lock (`s`).
    func transmit(_ message: MQTTMessage, waiter: AckWaiter, in s: inout ClientState, _ fx: inout ClientEffects) throws -> Transmitted {
        let ticket = s.ticket
        let (rc, mid) = handle.publish(message, properties: try Self.propertyList(of: message, on: s.version))
        if rc == MosquittoHandle.success {
            s.statistics.messagesSent += 1
            s.register(mid, waiter, sentWith: ticket, &fx)
            return .waiting
        }
        guard rc == MosquittoHandle.noConnection else {
            throw MQTTError.operationFailed(call: "mosquitto_publish(\(message.topic))", reason: MosquittoHandle.describe(rc))
        }
        guard message.qos != .atMostOnce else { return .noConnection }
        // libmosquitto has kept the message in its own queue (under `mid`) and resends it after
        // the next CONNACK: queuing a copy here too would deliver it twice (a pulse or a toggle
        // would then act twice).
        s.statistics.messagesQueued += 1
        // Its acknowledgement comes under the same id after the resend: a callback still hears it.
        if case .notify = waiter {
            s.register(mid, waiter, sentWith: ticket, &fx)
        } else {
            s.register(mid, .ignoreRetried(topic: message.topic), sentWith: ticket, &fx)
        }
        return .queued
    }

    /// Sends held messages, in order, while the in-flight window has room (under the client's
    /// lock, `s`). Called when an acknowledgement frees a place and after a CONNACK.
    func releaseHeld(_ s: inout ClientState, _ fx: inout ClientEffects) {
        while s.phase == .connected || s.phase == .closing, let next = s.held.first,
              next.message.qos == .atMostOnce || s.pending.inFlight < s.inFlightLimit {
            s.held.removeFirst()
            let outcome: Result<Transmitted, any Error> = Result { try transmit(next.message, waiter: next.waiter, in: &s, &fx) }
            switch outcome {
            case .success(.waiting):
                continue
            case .success(.queued):
                if case .publish(_, _, let c, _) = next.waiter { fx.add { c.resume(returning: .queued) } }
            case .success(.noConnection):
                // Gone just now: it waits for the next CONNACK, still first in line.
                s.held.prepend(next)
                return
            case .failure(let error):
                if case .publish(_, _, let c, _) = next.waiter { fx.add { c.resume(throwing: error) } }
                logger.error("sending a held message to \(next.message.topic) failed: \(error)")
            }
        }
        s.backlogShrank(&fx)
    }

    /// The property list `message` goes out with on a `version` connection: nil without
    /// properties and on MQTT 3.1.1 (which has none); subscription identifiers are never sent.
    static func propertyList(of message: MQTTMessage, on version: MQTTProtocolVersion) throws(MQTTError) -> MosquittoPropertyList? {
        guard version == .v5, message.hasProperties else { return nil }
        let list = try MosquittoPropertyList(message.properties, topic: message.topic)
        return list.isEmpty ? nil : list
    }

    /// The task awaiting the publish under `key` was cancelled: its waiter ends with
    /// `CancellationError`; the message is still delivered, its acknowledgement consumed quietly.
    private func stopWaiting(for key: UInt64) {
        let waiter: AckWaiter? = state.withLock { s in
            if let mid = s.pending.mid(ofPublish: key), let waiter = s.pending[mid], case .publish(let qos, _, _, let topic) = waiter {
                s.pending[mid] = .unattended(qos, topic: topic)
                return waiter
            }
            if let index = s.held.firstIndex(where: { if case .publish(_, key, _, _) = $0.waiter { true } else { false } }) {
                let held = s.held[index]
                s.held[index] = ClientState.HeldMessage(message: held.message, waiter: .unattended(held.message.qos, topic: held.message.topic))
                return held.waiter
            }
            return nil
        }
        if case .publish(_, _, let c, _)? = waiter { c.resume(throwing: CancellationError()) }
    }

    /// Publishes `payload` to `topic`; see `publish(_:timeToLive:)`.
    @discardableResult
    public func publish(
        to topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false,
        properties: MQTTPublishProperties = MQTTPublishProperties(), timeToLive: Duration? = nil
    ) async throws -> MQTTDelivery {
        try await publish(MQTTMessage(topic: topic, payload: payload, qos: qos, retain: retain, properties: properties), timeToLive: timeToLive)
    }

    /// Publishes a UTF-8 text payload to `topic`; see `publish(_:timeToLive:)`.
    @discardableResult
    public func publish(
        to topic: String, payload: String, qos: MQTTQoS = .atMostOnce, retain: Bool = false,
        properties: MQTTPublishProperties = MQTTPublishProperties(), timeToLive: Duration? = nil
    ) async throws -> MQTTDelivery {
        try await publish(MQTTMessage(topic: topic, string: payload, qos: qos, retain: retain, properties: properties), timeToLive: timeToLive)
    }
}

extension MQTTClient {
    /// `send(_:)`, with a failure (no connection and a full offline queue, say) logged instead
    /// of thrown: for messages nobody waits on (states, events, replies).
    public func send(_ message: MQTTMessage, loggingFailuresTo logger: Logger) {
        do {
            try send(message)
        } catch {
            logger.warning("publish \(message.topic) failed: \(error)")
        }
    }
}
