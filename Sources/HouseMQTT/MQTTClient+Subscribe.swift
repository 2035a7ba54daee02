extension MQTTClient {
    /// Subscribes to `filter` and returns the messages that match it as an `AsyncSequence`.
    ///
    /// Connected: returns after the SUBACK (throws `subscriptionRejected` on code 0x80).
    /// Disconnected: the subscription is registered and sent with the next CONNACK. Every active
    /// subscription is re-sent after every reconnect, whatever session-present says. Overlapping
    /// subscriptions each receive every message that matches them.
    public func subscribe(to filter: String, qos: MQTTQoS = .atLeastOnce) async throws -> MQTTSubscription {
        try await subscribe(filter, qos: qos, onMessage: nil)
    }

    /// Subscribes to `filter` and calls `onMessage` with each message that matches it, on
    /// libmosquitto's network thread, in the order they came: no task to wake per message. The
    /// handler must not block for long (the connection waits for it; that is also how it slows a
    /// sender down) and may `send` at once. The returned sequence yields no messages; it ends (or
    /// throws `subscriptionRejected`) when the subscription does, and `unsubscribe` stops the calls.
    public func subscribe(to filter: String, qos: MQTTQoS = .atLeastOnce,
                          onMessage: @escaping @Sendable (MQTTMessage) -> Void) async throws -> MQTTSubscription {
        try await subscribe(filter, qos: qos, onMessage: .some(onMessage))
    }

    private func subscribe(_ filter: String, qos: MQTTQoS, onMessage: (@Sendable (MQTTMessage) -> Void)?) async throws -> MQTTSubscription {
        try MQTTError.checkFilter(filter)
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: MQTTMessage.self, throwing: (any Error).self)
        let (id, connected, ticket): (UInt64, Bool, AckTicket) = try state.withLock { s in
            if s.isClosing { throw MQTTError.clientClosed }
            let id = s.makeID()
            s.subscriptions[id] = ClientState.Subscription(filter: filter, qos: qos, continuation: continuation, onMessage: onMessage)
            return (id, s.phase == .connected, s.ticket)
        }
        continuation.onTermination = { [weak self] _ in self?.subscriptionEnded(id) }

        var granted: MQTTQoS?
        if connected {
            let (rc, mid) = handle.subscribe(filter, qos: qos)
            if rc == MosquittoHandle.success {
                let codes = await withCheckedContinuation { (c: CheckedContinuation<[Int32]?, Never>) in
                    var fx = Effects()
                    state.withLock { s in s.register(mid, .subscribe(c), sentWith: ticket, &fx) }
                    fx.run()
                }
                if let code = codes?.first {
                    guard let qos = MQTTQoS(rawValue: Int(code)) else {
                        state.withLock { _ = $0.subscriptions.removeValue(forKey: id) }
                        continuation.finish(throwing: MQTTError.subscriptionRejected(filter: filter))
                        throw MQTTError.subscriptionRejected(filter: filter)
                    }
                    granted = qos
                }
            } else if rc != MosquittoHandle.noConnection {
                state.withLock { _ = $0.subscriptions.removeValue(forKey: id) }
                continuation.finish()
                throw MQTTError.operationFailed(call: "mosquitto_subscribe(\(filter))", reason: MosquittoHandle.describe(rc))
            }
        }
        return MQTTSubscription(id: id, filter: filter, requestedQoS: qos, grantedQoS: granted, stream: stream)
    }

    /// Ends `subscription`'s stream and, when no other subscription of this client uses the
    /// same filter, unsubscribes at the broker (waiting for UNSUBACK when connected).
    public func unsubscribe(_ subscription: MQTTSubscription) async throws {
        let (entry, send, ticket): (ClientState.Subscription?, Bool, AckTicket) = state.withLock { s in
            let entry = s.subscriptions.removeValue(forKey: subscription.id)
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
                    var fx = Effects()
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
            throw MQTTError.operationFailed(call: "mosquitto_unsubscribe(\(subscription.filter))", reason: MosquittoHandle.describe(rc))
        }
    }

    /// The consumer stopped iterating: forget the subscription, unsubscribe without waiting.
    func subscriptionEnded(_ id: UInt64) {
        let (filter, ticket): (String?, AckTicket) = state.withLock { s in
            guard let entry = s.subscriptions.removeValue(forKey: id) else { return (nil, s.ticket) }
            return (!s.filterInUse(entry.filter) && s.phase == .connected ? entry.filter : nil, s.ticket)
        }
        guard let filter else { return }
        let (rc, mid) = handle.unsubscribe(filter)
        guard rc == MosquittoHandle.success else { return }
        var fx = Effects()
        state.withLock { s in s.register(mid, .ignore, sentWith: ticket, &fx) }
        fx.run()
    }

    /// Number of active subscriptions (for tests and status output).
    public var activeSubscriptionCount: Int { state.withLock { $0.subscriptions.count } }
}
