extension MQTTClient {
    /// Subscribes to `filter` and returns the messages that match it as an `AsyncSequence`.
    ///
    /// Connected: returns after the SUBACK (throws `subscriptionRejected` with the broker's
    /// reason on a failure code: 0x80 on MQTT 3.1.1, e.g. "not authorized (0x87)" on MQTT 5).
    /// Disconnected: the subscription is registered and sent with the next CONNACK. Every active
    /// subscription is re-sent after every reconnect, whatever session-present says. Overlapping
    /// subscriptions each receive every message that matches them.
    public func subscribe(to filter: String, qos: MQTTQoS = .atLeastOnce) async throws -> MQTTSubscription {
        try await subscribe(filter, options: MQTTSubscribeOptions(qos: qos), onMessage: nil)
    }

    /// Subscribes to `filter` with MQTT 5 subscription options (no-local, retain as published,
    /// retain handling, a subscription identifier), as `subscribe(to:qos:)` does otherwise. The
    /// options are sent again at every re-subscribe after a reconnect. On an MQTT 3.1.1
    /// connection only `options.qos` is sent.
    ///
    /// Several subscriptions of this client to the same filter are one subscription at the
    /// broker: the last one sent sets its options (and a re-subscribe sends the latest
    /// subscription's options with the highest QoS of them all).
    ///
    /// - Throws: as `subscribe(to:qos:)`, and `invalidSubscribeOptions`.
    public func subscribe(to filter: String, options: MQTTSubscribeOptions) async throws -> MQTTSubscription {
        try await subscribe(filter, options: options, onMessage: nil)
    }

    /// Subscribes to `filter` and calls `onMessage` with each message that matches it, on
    /// libmosquitto's network thread, in the order they came: no task to wake per message. The
    /// handler must not block for long (the connection waits for it; that is also how it slows a
    /// sender down) and may `send` at once: the packet is written before `send` returns (no
    /// libmosquitto lock is held while a handler runs). The returned sequence yields no messages;
    /// it ends (or throws `subscriptionRejected`) when the subscription does, and `unsubscribe`
    /// stops the calls.
    public func subscribe(to filter: String, qos: MQTTQoS = .atLeastOnce,
                          onMessage: @escaping @Sendable (MQTTMessage) -> Void) async throws -> MQTTSubscription {
        try await subscribe(filter, options: MQTTSubscribeOptions(qos: qos), onMessage: .some(onMessage))
    }

    /// `subscribe(to:qos:onMessage:)` with MQTT 5 subscription options (see
    /// `subscribe(to:options:)`).
    public func subscribe(to filter: String, options: MQTTSubscribeOptions,
                          onMessage: @escaping @Sendable (MQTTMessage) -> Void) async throws -> MQTTSubscription {
        try await subscribe(filter, options: options, onMessage: .some(onMessage))
    }

    private func subscribe(_ filter: String, options: MQTTSubscribeOptions, onMessage: (@Sendable (MQTTMessage) -> Void)?) async throws -> MQTTSubscription {
        try MQTTError.checkFilter(filter)
        try options.validate(filter: filter)
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: MQTTMessage.self, throwing: (any Error).self)
        typealias Registered = (id: UInt64, connected: Bool, ticket: AckTicket, version: MQTTProtocolVersion, identifier: Int?)
        let registered: Registered = try state.withLock { s in
            if s.isClosing { throw MQTTError.clientClosed }
            let id = s.makeID()
            s.addSubscription(ClientState.Subscription(filter: filter, options: options, continuation: continuation, onMessage: onMessage), id: id)
            let connected = s.phase == .connected
            // Before the SUBSCRIBE goes out: the retained messages it brings carry the identifier.
            let identifier = connected ? s.assignIdentifier(to: filter, requested: options.subscriptionIdentifier, newcomer: id) : nil
            return (id, connected, s.ticket, s.version, identifier)
        }
        let (id, connected, ticket) = (registered.id, registered.connected, registered.ticket)
        if connected { warnIfIdentifierDropped(filter, requested: options.subscriptionIdentifier, sent: registered.identifier, version: registered.version) }
        continuation.onTermination = { [weak self] _ in self?.subscriptionEnded(id) }

        var granted: MQTTQoS?
        if connected {
            let (rc, mid) = handle.subscribe(filter, options: options, identifier: registered.identifier, version: registered.version)
            if rc == MosquittoHandle.success {
                let codes = await withCheckedContinuation { (c: CheckedContinuation<[Int32]?, Never>) in
                    var fx = ClientEffects()
                    state.withLock { s in s.register(mid, .subscribe(c), sentWith: ticket, &fx) }
                    fx.run()
                }
                if let code = codes?.first {
                    guard let qos = MQTTQoS(rawValue: Int(code)) else {
                        let rejected = MQTTError.subscriptionRejected(filter: filter, reason: MQTTReasonCode(UInt8(truncatingIfNeeded: code)))
                        state.withLock { _ = $0.removeSubscription(id) }
                        continuation.finish(throwing: rejected)
                        throw rejected
                    }
                    granted = qos
                }
            } else if rc != MosquittoHandle.noConnection {
                state.withLock { _ = $0.removeSubscription(id) }
                continuation.finish()
                throw MQTTError.operationFailed(call: "mosquitto_subscribe_v5(\(filter))", reason: MosquittoHandle.describe(rc))
            }
        }
        return MQTTSubscription(id: id, filter: filter, options: options, grantedQoS: granted, stream: stream)
    }

    /// Ends `subscription`'s stream and, when no other subscription of this client uses the
    /// same filter, unsubscribes at the broker (waiting for UNSUBACK when connected).
    public func unsubscribe(_ subscription: MQTTSubscription) async throws {
        let (entry, send, ticket): (ClientState.Subscription?, Bool, AckTicket) = state.withLock { s in
            let entry = s.removeSubscription(subscription.id)
            let send = entry != nil && !s.filterInUse(subscription.filter) && s.phase == .connected
            return (entry, send, s.ticket)
        }
        entry?.continuation.finish()
        guard send else { return }
        let (rc, mid) = handle.unsubscribe(subscription.filter)
        if rc == MosquittoHandle.success {
            // Cancelling the waiting task stops the wait (the UNSUBACK is then consumed quietly):
            // a broker that stopped answering must not hold a shutdown.
            await withTaskCancellationHandler {
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    var fx = ClientEffects()
                    state.withLock { s in
                        if Task.isCancelled {
                            s.register(mid, .ignore, sentWith: ticket, &fx)
                            fx.add { c.resume() }
                        } else {
                            s.register(mid, .unsubscribe(c), sentWith: ticket, &fx)
                        }
                    }
                    fx.run()
                }
            } onCancel: {
                let waiter: AckWaiter? = state.withLock { s in
                    guard case .unsubscribe? = s.pending[mid] else { return nil }
                    return s.pending.updateValue(.ignore, forKey: mid)
                }
                if case .unsubscribe(let c)? = waiter { c.resume() }
            }
        } else if rc != MosquittoHandle.noConnection {
            throw MQTTError.operationFailed(call: "mosquitto_unsubscribe_v5(\(subscription.filter))", reason: MosquittoHandle.describe(rc))
        }
    }

    /// The consumer stopped iterating: forget the subscription, unsubscribe without waiting.
    func subscriptionEnded(_ id: UInt64) {
        let (filter, ticket): (String?, AckTicket) = state.withLock { s in
            guard let entry = s.removeSubscription(id) else { return (nil, s.ticket) }
            return (!s.filterInUse(entry.filter) && s.phase == .connected ? entry.filter : nil, s.ticket)
        }
        guard let filter else { return }
        let (rc, mid) = handle.unsubscribe(filter)
        guard rc == MosquittoHandle.success else { return }
        var fx = ClientEffects()
        state.withLock { s in s.register(mid, .ignore, sentWith: ticket, &fx) }
        fx.run()
    }

    /// A subscription identifier the caller asked for that the broker does not take (MQTT 5
    /// without them) is left out of the SUBSCRIBE: said in the log.
    func warnIfIdentifierDropped(_ filter: String, requested: Int?, sent: Int?, version: MQTTProtocolVersion) {
        guard requested != nil, sent == nil, version == .v5 else { return }
        logger.warning("MQTT broker \(endpoint) takes no subscription identifiers: subscribing to \(filter) without one")
    }

    /// Number of active subscriptions (for tests and status output).
    public var activeSubscriptionCount: Int { state.withLock { $0.subscriptions.count } }
}
