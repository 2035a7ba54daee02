import Logging
import Signals

extension MQTTClient {
    /// Connects once and reports exactly why it failed (host:port and reason, bad credentials,
    /// TLS, timeout). After a successful connect the client keeps itself connected in the
    /// background, reconnecting with backoff, until `disconnect()`.
    ///
    /// - Returns: whether the broker had a stored session (session present).
    @discardableResult
    public func connect() async throws -> Bool {
        try state.withLock { s in
            switch s.phase {
            case .idle: break
            case .disconnected where s.maintenance == nil: break
            case .closing, .closed: throw MQTTError.clientClosed
            default: throw MQTTError.invalidConfiguration("connect() or run() was already called on this client")
            }
        }
        let sessionPresent = try await attempt()
        let task = Task { await self.maintain(startConnected: true) }
        state.withLock { $0.maintenance = task }
        return sessionPresent
    }

    /// Keeps the client connected until the task is cancelled or `disconnect()` is called, then
    /// disconnects. Connect failures are retried with backoff and reported on
    /// `connectionStates()`; this is the form for a service group (it never needs a `Task {}`).
    public func run() async throws {
        try state.withLock { s in
            switch s.phase {
            case .idle: break
            case .disconnected where s.maintenance == nil: break
            case .closing, .closed: throw MQTTError.clientClosed
            default: throw MQTTError.invalidConfiguration("connect() or run() was already called on this client")
            }
            s.phase = .disconnected
        }
        await maintain(startConnected: false)
        await disconnect()
    }

    /// Closes the client for good: lets in-flight acknowledgements arrive (and, with a clean
    /// session, unsubscribes) for at most 2 s, sends DISCONNECT so the broker does not publish the
    /// last will, stops the network thread, ends every subscription and state stream and fails
    /// waiting operations with `clientClosed`. Idempotent.
    ///
    /// - Parameter limit: the most the whole call may take (real time). Without one, each wait on
    ///   the broker is bounded (2 s each) but stopping libmosquitto's network thread is awaited
    ///   to the end. With one, a network thread that does not stop in time (a connect or a name
    ///   lookup blocking the worker thread) is left behind, with a warning: for a process that is
    ///   about to exit.
    public func disconnect(within limit: Duration? = nil) async {
        let realTime = ClientClock(ContinuousClock())
        let end = ContinuousClock.now.advanced(by: limit ?? .seconds(3600))
        /// What is left of `limit`, at most `wanted`.
        func bounded(_ wanted: Duration) -> Duration { max(.zero, min(wanted, ContinuousClock.now.duration(to: end))) }
        let plan: (wasConnected: Bool, task: Task<Void, Never>?, signal: OneShot<Void>)? = state.withLock { s in
            if s.isClosing { return nil }
            let wasConnected = s.phase == .connected
            s.phase = .closing
            let signal = OneShot<Void>()
            s.disconnectSignal = signal
            defer { s.maintenance = nil }
            return (wasConnected, s.maintenance, signal)
        }
        guard let plan else { return }
        closeSignal.fulfill(())
        if plan.wasConnected {
            await quiesce(within: bounded(.seconds(2)))
            if handle.disconnect() == MosquittoHandle.success {
                // Wait for DISCONNECT to be written (the disconnect callback), bounded.
                _ = await realTime.wait(for: plan.signal, timeout: bounded(.seconds(2)), interruptedBy: nil)
            }
        }
        plan.task?.cancel()
        await plan.task?.value
        if limit == nil {
            await worker.run { [handle] in handle.stopLoop() }
        } else if await onWorker(within: bounded(.seconds(3600)), { [handle] in handle.stopLoop() }) == nil {
            logger.warning("libmosquitto's network thread did not stop in time; leaving it behind")
        }

        var fx = ClientEffects()
        let observers: [AsyncStream<MQTTConnectionState>.Continuation] = state.withLock { s in
            s.phase = .closed
            s.connectedVersion = nil
            s.transition(to: .closed, &fx)
            for sub in s.removeAllSubscriptions() { fx.add { sub.continuation.finish() } }
            for waiter in s.pending.values { ClientState.settleClosed(waiter, &fx) }
            s.pending.removeAll()
            s.backlogReleased(&fx)
            if !s.held.isEmpty {
                logger.warning("closing with \(s.held.count) message(s) never sent: the broker did not acknowledge the ones before them in time")
                for held in s.held { ClientState.settleClosed(held.waiter, &fx) }
                s.held.removeAll()
            }
            s.early.removeAll()
            defer { s.observers.removeAll() }
            return Array(s.observers.values)
        }
        fx.run()
        for observer in observers { observer.finish() }
        logger.info("disconnected from \(endpoint)")
    }

    /// Connects, runs `body`, and disconnects whatever happens.
    @discardableResult
    public static func withConnection<Result: Sendable>(
        _ configuration: MQTTConfiguration,
        logger: Logger = Logger(label: "housectl.mqtt"),
        _ body: (MQTTClient) async throws -> Result
    ) async throws -> Result {
        let client = try MQTTClient(configuration: configuration, logger: logger)
        do {
            try await client.connect()
            let result = try await body(client)
            await client.disconnect()
            return result
        } catch {
            await client.disconnect()
            throw error
        }
    }

    // MARK: Internals

    /// Before DISCONNECT: libmosquitto 2.0 drops the connection without sending DISCONNECT (so
    /// the broker publishes the last will) when any packet arrives after `mosquitto_disconnect`.
    /// So first let in-flight acknowledgements arrive and, for clean sessions, unsubscribe so no
    /// more messages come; bounded by `limit`.
    func quiesce(within limit: Duration) async {
        let quiesced = OneShot<Void>()
        let filters: [String] = state.withLock { s in
            configuration.cleanSession ? s.keysByFilter.keys.sorted() : []
        }
        let ticket = state.withLock { $0.ticket }
        var unsubscribed: [Int32] = []
        for filter in filters {
            let (rc, mid) = handle.unsubscribe(filter)
            if rc == MosquittoHandle.success { unsubscribed.append(mid) }
        }
        var fx = ClientEffects()
        let done: Bool = state.withLock { s in
            for mid in unsubscribed { s.register(mid, .ignore, sentWith: ticket, &fx) }
            s.quiesced = quiesced
            return s.isQuiet || s.phase != .closing
        }
        fx.run()
        if done { return }
        _ = await ClientClock(ContinuousClock()).wait(for: quiesced, timeout: limit, interruptedBy: nil)
    }

    /// Runs `body` on the worker thread and waits for it until `disconnect()` starts (with
    /// `limit`: at most that long, real time); nil when it stopped waiting first. The job itself
    /// runs to its end: a blocking libmosquitto call cannot be interrupted, only no longer awaited.
    func onWorker<T: Sendable>(within limit: Duration? = nil, _ body: @escaping @Sendable () -> T) async -> T? {
        let done = OneShot<T>()
        worker.submit { done.fulfill(body()) }
        let outcome = limit == nil
            ? await clock.wait(for: done, timeout: nil, interruptedBy: closeSignal)
            : await ClientClock(ContinuousClock()).wait(for: done, timeout: limit, interruptedBy: nil)
        if case .value(let value) = outcome { return value }
        return nil
    }

    /// One connect attempt: waits for CONNACK, a failure, the connect timeout or `disconnect()`.
    /// An MQTT 5 CONNECT refused as an unsupported protocol version is tried again at once with
    /// 3.1.1, which this client then keeps (one warning in the log).
    @discardableResult
    func attempt() async throws -> Bool {
        var fx = ClientEffects()
        let version: MQTTProtocolVersion = try state.withLock { s in
            if s.isClosing { throw MQTTError.clientClosed }
            s.phase = .connecting
            s.lossSignal = OneShot<MQTTError>()
            s.transition(to: .connecting, &fx)
            return s.version
        }
        fx.run()
        logger.debug("connecting to \(endpoint) with \(version)")

        var result = await connectOnce()
        if case .failure(let error) = result, error.isProtocolVersionRefusal, version == .v5 {
            // libmosquitto's thread ends with the refused connection; joined, no late callback of
            // it can reach the next attempt.
            await worker.run { [handle] in handle.stopLoop() }
            let fallBack = state.withLock { s in
                guard s.phase == .connecting else { return false }
                s.version = .v311
                return true
            }
            if fallBack {
                logger.warning("MQTT broker \(endpoint) does not speak MQTT 5 (\(error.reasonCode?.description ?? "refused")): connecting with MQTT 3.1.1, also for later reconnects")
                result = await connectOnce()
            }
        }

        switch result {
        case .success(let sessionPresent):
            logger.info("connected to \(endpoint)\(sessionPresent ? " (session present)" : "")")
            return sessionPresent
        case .failure(let error):
            enum Next { case tearDown, raceWon, leave }
            var fx = ClientEffects()
            let next: Next = state.withLock { s in
                switch s.phase {
                case .connecting:
                    s.attemptSignal = nil
                    s.statistics.failedConnectAttempts += 1
                    s.phase = .disconnected
                    s.transition(to: .disconnected(error), &fx)
                    return .tearDown
                case .connected:
                    return .raceWon  // CONNACK arrived just as the timeout fired: keep the connection
                case .idle, .disconnected, .closing, .closed:
                    return .leave  // disconnect() is closing the connection; leave it to it
                }
            }
            fx.run()
            switch next {
            case .raceWon:
                return false
            case .tearDown:
                await worker.run { [handle] in handle.stopLoop() }
                logger.warning("\(error)")
                throw error
            case .leave:
                throw error
            }
        }
    }

    /// Starts a connect with the state's protocol version and waits for its outcome: CONNACK
    /// (session present), a failure, the connect timeout or `disconnect()`.
    private func connectOnce() async -> Result<Bool, MQTTError> {
        let signal = OneShot<Result<Bool, MQTTError>>()
        let version: MQTTProtocolVersion = state.withLock { s in
            s.attemptSignal = signal
            s.lastErrorLog = nil
            return s.version
        }
        do {
            let username = configuration.credentials?.username
            let password = try configuration.credentials?.resolvePassword()
            let c = configuration
            // Not awaited past `disconnect()`: a name lookup or TLS setup may block for long.
            guard let failure = await onWorker({ [handle] in
                handle.connect(c, version: version, username: username, password: password)
            }) else {
                return .failure(.clientClosed)
            }
            if let failure {
                // A TLS failure inside mosquitto_connect_async: its OpenSSL log line says why.
                let detail = state.withLock { $0.lastErrorLog }
                if case .tlsFailed(let endpoint, _) = failure, let detail {
                    return .failure(.tlsFailed(endpoint: endpoint, reason: detail))
                }
                return .failure(failure)
            }
            switch await clock.wait(for: signal, timeout: configuration.connectTimeout, interruptedBy: closeSignal) {
            case .value(let value): return value
            case .timedOut: return .failure(.connectTimedOut(endpoint: endpoint, after: configuration.connectTimeout))
            case .interrupted: return .failure(.clientClosed)
            }
        } catch let error as MQTTError {
            return .failure(error)
        } catch {
            return .failure(.credentialsUnavailable("\(error)"))
        }
    }

    /// The reconnect loop: wait for a loss, back off (bounded, with jitter), try again.
    func maintain(startConnected: Bool) async {
        var connected = startConnected
        var immediate = !startConnected
        var retries = 0  // backoff steps since the last successful connect
        while !closeSignal.isFulfilled && !Task.isCancelled {
            if connected {
                guard let loss = state.withLock({ $0.lossSignal }) else { return }
                guard case .value = await clock.wait(for: loss, timeout: nil, interruptedBy: closeSignal) else { return }
                guard await onWorker({ [handle] in handle.stopLoop() }) != nil else { return }
                connected = false
            }
            if !immediate {
                let step = retries
                let delay = state.withLock { s in configuration.reconnect.delay(forAttempt: step, using: &s.random) }
                retries += 1
                logger.debug("reconnecting to \(endpoint) in \(delay)")
                guard case .timedOut = await clock.wait(for: closeSignal, timeout: delay, interruptedBy: nil) else { return }
            }
            immediate = false
            do {
                try await attempt()
                connected = true
                retries = 0
            } catch MQTTError.clientClosed {
                return
            } catch {
                continue
            }
        }
    }

    /// Tests: cut the TCP connection without DISCONNECT, as a crash or network failure would.
    /// The broker publishes the last will; the client notices the loss and reconnects.
    func abortConnectionForTesting() {
        handle.abortSocket()
    }
}
