import Foundation
import Logging
import MQTTTopics
import Signals
import Synchronization

/// An MQTT 5 and 3.1.1 client over libmosquitto that survives the real world: it reconnects
/// with bounded exponential backoff, re-subscribes and re-publishes its birth message after
/// every CONNACK, and queues publishes while offline. It speaks MQTT 5 unless configured
/// otherwise, and falls back to 3.1.1 with a broker that refuses MQTT 5
/// (`MQTTConfiguration.protocolVersion`, `protocolVersion`).
///
/// ```swift
/// let client = try MQTTClient(configuration: .init(host: "127.0.0.1", port: 1883))
/// try await client.connect()
/// let lights = try await client.subscribe(to: "house/+/+/state")
/// try await client.publish(to: "house/hall/light/set", payload: "ON", qos: .atLeastOnce)
/// for try await message in lights { print(message) }
/// await client.disconnect()
/// ```
///
/// libmosquitto runs its own network thread; its callbacks copy data out and feed the Swift
/// streams. Blocking calls (connect, joining that thread) run on a dedicated worker thread.
public final class MQTTClient: Sendable {
    /// The configuration this client was created with.
    public let configuration: MQTTConfiguration
    /// `host:port`, for errors (made once: every publish may need it).
    let endpoint: String
    let logger: Logger
    let clock: ClientClock
    let handle: MosquittoHandle
    let worker: BlockingWorker
    let state: Mutex<ClientState>
    /// Fulfilled when `disconnect()` starts: stops the reconnect loop and pending waits.
    let closeSignal = OneShot<Void>()

    /// Creates a client; nothing happens on the network until `connect()` or `run()`.
    ///
    /// - Parameters:
    ///   - clock: measures message time to live, reconnect backoff and the connect timeout.
    ///   - random: the jitter source for the reconnect backoff.
    /// - Throws: `MQTTError.invalidConfiguration` (or a topic error for will/birth) when the
    ///   configuration cannot work.
    public init(
        configuration: MQTTConfiguration,
        logger: Logger = Logger(label: "housectl.mqtt"),
        clock: some Clock<Duration> = ContinuousClock(),
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) throws {
        try configuration.validate()
        self.configuration = configuration
        self.endpoint = configuration.endpoint
        var logger = logger
        logger[metadataKey: "mqtt.broker"] = "\(configuration.endpoint)"
        logger[metadataKey: "mqtt.client"] = "\(configuration.clientID)"
        self.logger = logger
        self.clock = ClientClock(clock)
        self.handle = try MosquittoHandle(clientID: configuration.clientID, cleanSession: configuration.cleanSession)
        self.worker = BlockingWorker(name: "mqtt-\(configuration.clientID)")
        self.state = Mutex(ClientState(
            queueCapacity: configuration.offlineQueueCapacity, random: random,
            inFlightLimit: configuration.maximumInFlight, version: configuration.protocolVersion, logger: logger))
        try handle.configure(configuration)
        handle.client = self
    }

    deinit {
        // Join libmosquitto's thread off whatever thread dropped the last reference.
        let handle = self.handle
        worker.submit { handle.stopLoop() }
        worker.stop()
    }

    /// The current connection state.
    public var connectionState: MQTTConnectionState { state.withLock { $0.publicState } }

    /// The protocol version the current connection speaks: `.v5` when MQTT 5 features
    /// (properties, subscription options, reason codes) are live, `.v311` after a fallback or
    /// when configured; nil while not connected.
    public var protocolVersion: MQTTProtocolVersion? { state.withLock { $0.connectedVersion } }

    /// Counters: connects, losses, sent, queued, flushed, expired, received, queue depth.
    public var statistics: MQTTStatistics {
        state.withLock { s in
            var stats = s.statistics
            stats.offlineQueueDepth = s.queue.count
            stats.inFlight = s.pending.inFlight
            stats.heldDepth = s.held.count
            return stats
        }
    }

    /// A stream of connection states: the current one first, then every change, ending after
    /// `.closed`.
    public func connectionStates() -> AsyncStream<MQTTConnectionState> {
        let (stream, continuation) = AsyncStream.makeStream(of: MQTTConnectionState.self)
        let id: UInt64? = state.withLock { s in
            continuation.yield(s.publicState)
            if s.phase == .closed { return nil }
            let id = s.makeID()
            s.observers[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: libmosquitto events (network thread)

    func handle(_ event: MosquittoEvent) {
        switch event {
        case .log(let level, let text):
            if level == MosquittoHandle.logError {
                // A failed TLS handshake ends libmosquitto's thread without a disconnect callback;
                // its OpenSSL error log line is the event that tells us.
                let attempt: OneShot<Result<Bool, MQTTError>>? = state.withLock { s in
                    s.lastErrorLog = text
                    return s.phase == .connecting && text.hasPrefix("OpenSSL Error") ? s.attemptSignal : nil
                }
                attempt?.fulfill(.failure(.tlsFailed(endpoint: endpoint, reason: text)))
                logger.debug("libmosquitto: \(text)")
            } else {
                logger.trace("libmosquitto: \(text)")
            }
        case .message(let message, let route):
            let targets = state.withLock { s in
                s.statistics.messagesReceived += 1
                return s.receivers(of: message.topic, route)
            }
            for target in targets {
                if let onMessage = target.onMessage { onMessage(message) } else { target.continuation.yield(message) }
            }
        case .published(let mid, let reason):
            acknowledge(mid, .published(MQTTReasonCode(UInt8(truncatingIfNeeded: reason))))
        case .subscribed(let mid, let granted):
            acknowledge(mid, .subscribed(granted))
        case .unsubscribed(let mid):
            acknowledge(mid, .unsubscribed)
        case .connack(let code, let sessionPresent, let properties):
            connackReceived(code: code, sessionPresent: sessionPresent, properties: properties)
        case .disconnected(let rc, let savedErrno):
            disconnected(rc: rc, errno: savedErrno)
        }
    }

    private func acknowledge(_ mid: Int32, _ event: AckEvent) {
        var fx = ClientEffects()
        state.withLock { s in
            if let waiter = s.pending.removeValue(forKey: mid) {
                s.complete(waiter, with: event, &fx)
                if !s.held.isEmpty { releaseHeld(&s, &fx) }
            } else {
                s.noteEarly(mid, event)
            }
            if s.phase == .closing, s.isQuiet, let quiesced = s.quiesced {
                fx.add { quiesced.fulfill(()) }
            }
        }
        fx.run()
    }

    /// CONNACK: on success re-subscribe everything, publish the birth message and flush the
    /// offline queue (all before any new publish can overtake them), then report `.connected`.
    private func connackReceived(code: Int32, sessionPresent: Bool, properties: ConnackProperties) {
        var fx = ClientEffects()
        state.withLock { s in
            guard s.phase == .connecting, let attempt = s.attemptSignal else { return }
            guard code == 0 else {
                let error = MQTTError.connack(code, version: s.version, endpoint: endpoint, reasonString: properties.reasonString)
                fx.add { attempt.fulfill(.failure(error)) }
                return
            }
            s.phase = .connected
            s.connectedVersion = s.version
            s.statistics.connects += 1
            // MQTT 5: the broker says how many QoS 1/2 publishes it takes unacknowledged (65,535
            // when it does not say); libmosquitto would park the rest (see `prepare`).
            s.inFlightLimit = s.version == .v5
                ? min(configuration.maximumInFlight, properties.receiveMaximum ?? 65_535) : configuration.maximumInFlight
            s.identifiersAvailable = s.version == .v5 && properties.subscriptionIdentifiersAvailable

            // One SUBSCRIBE per filter: the highest QoS of its subscriptions, and the MQTT 5
            // options of the latest one (a broker keeps one subscription per filter, the last
            // one sent).
            // The filters in the order of their first subscription (keys grow).
            for (filter, ids) in s.keysByFilter.sorted(by: { ($0.value.first ?? .max) < ($1.value.first ?? .max) }) {
                let subscriptions = ids.compactMap { s.subscriptions[$0] }
                guard var options = subscriptions.last?.options else { continue }
                options.qos = subscriptions.map(\.options.qos).max() ?? options.qos
                let group = (options: options, ids: ids)
                let ticket = s.ticket
                let requested = s.requestedIdentifier(for: filter)
                let identifier = s.assignIdentifier(to: filter, requested: requested)
                warnIfIdentifierDropped(filter, requested: requested, sent: identifier, version: s.version)
                let (rc, mid) = handle.subscribe(filter, options: group.options, identifier: identifier, version: s.version)
                if rc == MosquittoHandle.success {
                    s.register(mid, .resubscribe(group.ids), sentWith: ticket, &fx)
                } else {
                    logger.error("re-subscribing to \(filter) failed: \(MosquittoHandle.describe(rc))")
                }
            }
            if let birth = configuration.birthMessage {
                let ticket = s.ticket
                let (rc, mid) = handle.publish(birth, properties: try? Self.propertyList(of: birth, on: s.version))
                if rc == MosquittoHandle.success {
                    s.register(mid, .unattended(birth.qos, topic: birth.topic), sentWith: ticket, &fx)
                    s.statistics.messagesSent += 1
                } else {
                    logger.error("publishing the birth message to \(birth.topic) failed: \(MosquittoHandle.describe(rc))")
                }
            }
            // Messages held before the loss go first, then the offline queue, through the window.
            let (live, expired) = s.queue.drain(now: clock.now())
            s.statistics.messagesExpired += expired
            if expired > 0 { logger.info("dropped \(expired) expired queued message(s)") }
            s.statistics.messagesFlushed += live.count
            for entry in live { s.held.append(ClientState.HeldMessage(message: entry.message, waiter: .unattended(entry.message.qos, topic: entry.message.topic))) }
            releaseHeld(&s, &fx)
            s.transition(to: .connected(sessionPresent: sessionPresent), &fx)
            // Connected, libmosquitto's lines are per packet: worth formatting only for a debug
            // log (its error lines are logged at debug; a failed TLS handshake, the one that
            // matters, comes before CONNACK).
            if logger.logLevel > .debug { fx.add { [handle] in handle.forwardLogs(false) } }
            fx.add { attempt.fulfill(.success(sessionPresent)) }
        }
        fx.run()
    }

    private func disconnected(rc: Int32, errno savedErrno: Int32) {
        var fx = ClientEffects()
        state.withLock { s in
            switch s.phase {
            case .connecting:
                guard let attempt = s.attemptSignal else { return }
                let detail = s.lastErrorLog
                let error = MosquittoHandle.connectError(
                    rc: rc, errno: savedErrno, endpoint: endpoint, call: "connecting", detail: detail)
                fx.add { attempt.fulfill(.failure(error)) }
            case .connected:
                s.phase = .disconnected
                let lost: MQTTError
                if s.connectedVersion == .v5 && (rc == 0 || rc >= 0x80) && rc <= 0xFF {
                    // The broker's DISCONNECT: libmosquitto passes its reason code on.
                    lost = .disconnectedByBroker(endpoint: endpoint, reason: MQTTReasonCode(UInt8(rc)))
                } else {
                    let reason = rc == MosquittoHandle.errnoSet && savedErrno != 0
                        ? MosquittoHandle.errnoText(savedErrno) : MosquittoHandle.describe(rc)
                    lost = .connectionLost(endpoint: endpoint, reason: reason)
                }
                fx.add { [handle] in handle.forwardLogs(true) }
                s.connectionLost(lost, &fx)
                s.transition(to: .disconnected(lost), &fx)
                if let loss = s.lossSignal { fx.add { loss.fulfill(lost) } }
                logger.warning("\(lost)")
            case .closing:
                if let signal = s.disconnectSignal { fx.add { signal.fulfill(()) } }
                if let quiesced = s.quiesced { fx.add { quiesced.fulfill(()) } }
            case .idle, .disconnected, .closed:
                break
            }
        }
        fx.run()
    }
}
