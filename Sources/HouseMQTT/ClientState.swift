import DequeModule
import Logging
import MQTTTopics
import Signals

/// Side effects (continuation resumes, stream yields/finishes) collected under the client's lock
/// and run after it is released.
struct ClientEffects: Sendable {
    private var actions: [@Sendable () -> Void] = []
    mutating func add(_ action: @escaping @Sendable () -> Void) { actions.append(action) }
    func run() { for action in actions { action() } }
}

/// Who waits for a libmosquitto acknowledgement (by message id).
enum AckWaiter: Sendable {
    /// A publish to a topic, awaited under a key (to find it when its task is cancelled).
    case publish(MQTTQoS, UInt64, CheckedContinuation<MQTTDelivery, any Error>, topic: String)
    case subscribe(CheckedContinuation<[Int32]?, Never>)
    case unsubscribe(CheckedContinuation<Void, Never>)
    /// Re-subscription after CONNACK, for these subscription ids.
    case resubscribe([UInt64])
    /// Fire-and-forget (implicit unsubscribe, QoS 0 flush/birth).
    case ignore
    /// Fire-and-forget QoS 1/2 publish to a topic (flushed queue, birth message): libmosquitto
    /// resends it after a reconnect, so it stays outstanding across a connection loss.
    case ignoreRetried(topic: String)
    /// A publish whose acknowledgement's reason code goes to a callback (on the network thread),
    /// see `MQTTClient.send(_:acknowledged:)`. Kept across a connection loss like
    /// `ignoreRetried`; dropped uncalled when the client closes.
    case notify(MQTTQoS, @Sendable (MQTTReasonCode) -> Void)

    /// The waiter for a publish at `qos` that nobody waits for: its acknowledgement is consumed
    /// quietly, and a QoS 1/2 one stays outstanding across a reconnect.
    static func unattended(_ qos: MQTTQoS, topic: String) -> AckWaiter { qos == .atMostOnce ? .ignore : .ignoreRetried(topic: topic) }

    /// A QoS 1/2 publish: libmosquitto holds its message until the broker acknowledges it.
    var isInFlightPublish: Bool {
        switch self {
        case .publish(let qos, _, _, _), .notify(let qos, _): qos != .atMostOnce
        case .ignoreRetried: true
        case .subscribe, .unsubscribe, .resubscribe, .ignore: false
        }
    }
}

/// An acknowledgement that arrived before its waiter was registered.
enum AckEvent: Sendable {
    /// With the broker's reason code (MQTT 5; `success` on 3.1.1).
    case published(MQTTReasonCode)
    case subscribed([Int32])
    case unsubscribed
}

/// Taken (under the client's lock) before a packet is handed to libmosquitto, outside the lock:
/// tells its waiter which early acknowledgements and connection losses came after the packet.
struct AckTicket: Sendable {
    /// `ClientState.ackSequence` when taken: only early acknowledgements numbered above it can be
    /// for this packet (an older one with the same message id is a stale duplicate).
    let sequence: UInt64
    /// `ClientState.generation` when taken: a different value at registration means the
    /// connection was lost in between, and the loss handling already ran without this waiter.
    let generation: UInt64
}

/// The mutable state of an `MQTTClient`, always accessed under its mutex.
struct ClientState: Sendable {
    enum Phase: Sendable { case idle, connecting, connected, disconnected, closing, closed }

    struct Subscription: Sendable {
        let filter: String
        /// Sent again as they are at every re-subscribe (the MQTT 5 ones only on MQTT 5).
        let options: MQTTSubscribeOptions
        /// Ends (or throws) when the subscription does; carries the messages unless `onMessage` takes them.
        let continuation: AsyncThrowingStream<MQTTMessage, any Error>.Continuation
        /// Called with each message on the network thread, instead of the stream.
        let onMessage: (@Sendable (MQTTMessage) -> Void)?
        /// A filter without wildcards matches its one topic: compared as a string.
        let isExact: Bool
        /// The subscription identifiers of its own SUBSCRIBE and of the later ones of its filter
        /// (MQTT 5; the latest last, at most `ClientState.identifiersKept`); empty without. A
        /// later SUBSCRIBE of the filter replaces the broker's subscription, so its identifier is
        /// this subscription's too; an earlier one's is not (the retained messages that SUBSCRIBE
        /// brought are not for a subscription made after it).
        var identifiers: [Int] = []

        init(filter: String, options: MQTTSubscribeOptions, continuation: AsyncThrowingStream<MQTTMessage, any Error>.Continuation,
             onMessage: (@Sendable (MQTTMessage) -> Void)?) {
            self.filter = filter
            self.options = options
            self.continuation = continuation
            self.onMessage = onMessage
            isExact = !MQTTTopic.hasWildcards(filter)
        }

        func matches(_ topic: String) -> Bool {
            isExact ? topic == filter : MQTTTopic.matches(topic: topic, filter: filter)
        }
    }

    var phase: Phase = .idle
    var publicState: MQTTConnectionState = .idle
    var observers: [UInt64: AsyncStream<MQTTConnectionState>.Continuation] = [:]
    /// Every subscription by its key. Added and removed only through `addSubscription`,
    /// `removeSubscription` and `removeAllSubscriptions`, which keep `keysByFilter` in step.
    var subscriptions: [UInt64: Subscription] = [:]
    /// The keys of `subscriptions` by filter, and the filters with wildcards: a message finds its
    /// subscriptions by one lookup of its topic and a match of each wildcard filter, and only the
    /// subscriptions it goes to are copied out (`receivers(of:_:)`).
    var keysByFilter: [String: [UInt64]] = [:]
    var wildcardFilters: [String] = []
    var nextID: UInt64 = 0
    var pending = PendingAcknowledgements()
    /// Messages waiting for room in the in-flight window (`MQTTConfiguration.maximumInFlight`),
    /// in order: while any waits here, every new message queues behind it.
    var held: Deque<HeldMessage> = []
    /// Fulfilled when the backlog of `held` is down to `MQTTClient.backlogLow` (`waitForRoom`).
    var backlogRoom: OneShot<Void>?
    /// A wait for room ran out of time: `waitForRoom` returns at once until the backlog shrinks.
    var backlogStalled = false
    /// Acknowledgements that arrived before their waiter was registered, with their arrival
    /// number (`ackSequence`). Kept across connection losses: a PUBACK that came just before a
    /// loss still belongs to the publish that registers just after it.
    var early: [Int32: (event: AckEvent, sequence: UInt64)] = [:]
    /// Counts early acknowledgements.
    var ackSequence: UInt64 = 0
    /// Counts connection losses.
    var generation: UInt64 = 0
    /// The error of the last connection loss.
    var lastLoss: MQTTError?
    var queue: MQTTOfflineQueue
    var statistics = MQTTStatistics()
    var attemptSignal: OneShot<Result<Bool, MQTTError>>?
    var lossSignal: OneShot<MQTTError>?
    var disconnectSignal: OneShot<Void>?
    /// While closing: fulfilled when no acknowledgement is outstanding any more.
    var quiesced: OneShot<Void>?
    var lastErrorLog: String?
    var random: any RandomNumberGenerator & Sendable
    var maintenance: Task<Void, Never>?
    /// The protocol version of the connect under way and the next ones: the configured one, or
    /// 3.1.1 once the broker refused MQTT 5.
    var version: MQTTProtocolVersion
    /// The version the current connection speaks; nil while not connected.
    var connectedVersion: MQTTProtocolVersion?
    /// Most QoS 1/2 publishes awaiting acknowledgement (the in-flight window): the configured
    /// `maximumInFlight`, on MQTT 5 at most the broker's receive maximum.
    var inFlightLimit: Int
    /// Whether the connection takes subscription identifiers (MQTT 5, unless the broker said no).
    var identifiersAvailable = false
    /// The identifier each filter was last subscribed with; kept across reconnects, so that
    /// messages a persistent session queued still find their subscriptions.
    var filterIdentifiers: [String: Int] = [:]
    /// The next of the client's own identifiers (`ownIdentifiers`).
    var nextOwnIdentifier = ClientState.ownIdentifiers.lowerBound

    /// Where refused publishes are logged (the client's logger).
    let logger: Logger

    init(queueCapacity: Int, random: any RandomNumberGenerator & Sendable, inFlightLimit: Int = 100,
         version: MQTTProtocolVersion = .v5, logger: Logger = Logger(label: "housectl.mqtt")) {
        self.logger = logger
        self.queue = MQTTOfflineQueue(capacity: queueCapacity)
        self.random = random
        self.inFlightLimit = inFlightLimit
        self.version = version
    }

    /// A message waiting for the in-flight window, with who waits for its acknowledgement.
    struct HeldMessage: Sendable {
        let message: MQTTMessage
        let waiter: AckWaiter
    }

    var isClosing: Bool { phase == .closing || phase == .closed }

    /// Nothing is left to acknowledge or to send: closing may go on.
    var isQuiet: Bool { pending.isEmpty && held.isEmpty }

    mutating func makeID() -> UInt64 {
        nextID += 1
        return nextID
    }

    /// Publishes a new connection state to every observer.
    mutating func transition(to new: MQTTConnectionState, _ fx: inout ClientEffects) {
        publicState = new
        for observer in observers.values { observer.yield(new) }
    }

    /// A ticket for a packet about to be handed to libmosquitto.
    var ticket: AckTicket { AckTicket(sequence: ackSequence, generation: generation) }

    /// Registers a waiter for the packet `mid` sent with `ticket`. Completes it at once when its
    /// acknowledgement came early; settles it as the loss or the close did when one of those
    /// happened since the packet was sent; otherwise it waits in `pending`.
    mutating func register(_ mid: Int32, _ waiter: AckWaiter, sentWith ticket: AckTicket, _ fx: inout ClientEffects) {
        if let early = early.removeValue(forKey: mid), early.sequence > ticket.sequence {
            complete(waiter, with: early.event, &fx)
        } else if phase == .closed {
            Self.settleClosed(waiter, &fx)
        } else if ticket.generation != generation, let lost = lastLoss {
            if let kept = Self.settleLost(waiter, lost, &fx) { pending[mid] = kept }
        } else {
            pending[mid] = waiter
        }
    }

    /// An acknowledgement arrived before its waiter registered: keep it for `register`.
    mutating func noteEarly(_ mid: Int32, _ event: AckEvent) {
        ackSequence += 1
        early[mid] = (event, ackSequence)
        // Normally taken within microseconds; what stays (a duplicate PUBACK after a resend,
        // say) is dropped once many newer ones have come.
        if early.count > 256 { early = early.filter { ackSequence - $0.value.sequence < 256 } }
    }

    /// The connection is gone: settle every waiter as `settleLost` says.
    mutating func connectionLost(_ lost: MQTTError, _ fx: inout ClientEffects) {
        statistics.connectionLosses += 1
        backlogReleased(&fx)
        connectedVersion = nil
        generation += 1
        lastLoss = lost
        for (mid, waiter) in pending.entries {
            pending[mid] = Self.settleLost(waiter, lost, &fx)
        }
    }

    /// What a connection loss does to a waiter: QoS 0 publishes fail, subscribe and unsubscribe
    /// requests return (subscriptions are re-sent on CONNACK). Returns the waiter to keep:
    /// QoS 1/2 publishes, which libmosquitto resends after the next CONNACK.
    static func settleLost(_ waiter: AckWaiter, _ lost: MQTTError, _ fx: inout ClientEffects) -> AckWaiter? {
        switch waiter {
        case .publish(.atMostOnce, _, let c, _):
            fx.add { c.resume(throwing: lost) }
            return nil
        case .notify(.atMostOnce, _):
            return nil
        case .publish, .ignoreRetried, .notify:
            return waiter
        case .subscribe(let c):
            fx.add { c.resume(returning: nil) }
            return nil
        case .unsubscribe(let c):
            fx.add { c.resume() }
            return nil
        case .ignore, .resubscribe:
            return nil
        }
    }

    /// What closing the client does to a waiter.
    static func settleClosed(_ waiter: AckWaiter, _ fx: inout ClientEffects) {
        switch waiter {
        case .publish(_, _, let c, _): fx.add { c.resume(throwing: MQTTError.clientClosed) }
        case .subscribe(let c): fx.add { c.resume(returning: nil) }
        case .unsubscribe(let c): fx.add { c.resume() }
        case .resubscribe, .ignore, .ignoreRetried, .notify: break
        }
    }

    /// Ends `waiter` with its acknowledgement. A publish the broker refused (MQTT 5: a reason
    /// code of 0x80 or more) is no delivery: it is counted in `messagesRefused`, its awaiting task
    /// throws `publishRefused`, and the log names its topic.
    mutating func complete(_ waiter: AckWaiter, with event: AckEvent, _ fx: inout ClientEffects) {
        if case .published(let reason) = event, reason.isFailure {
            refused(waiter, reason, &fx)
        }
        switch waiter {
        case .publish(_, _, let c, _):
            if case .published(let reason) = event, reason.isFailure {
                fx.add { c.resume(throwing: MQTTError.publishRefused(reason: reason)) }
            } else {
                fx.add { c.resume(returning: .delivered) }
            }
        case .notify(_, let acknowledged):
            if case .published(let reason) = event { fx.add { acknowledged(reason) } }
        case .subscribe(let c):
            if case .subscribed(let codes) = event { fx.add { c.resume(returning: codes) } } else { fx.add { c.resume(returning: nil) } }
        case .unsubscribe(let c):
            fx.add { c.resume() }
        case .resubscribe(let ids):
            guard case .subscribed(let codes) = event, let code = codes.first, code > 2 else { return }
            let reason = MQTTReasonCode(UInt8(truncatingIfNeeded: code))
            for id in ids {
                guard let sub = removeSubscription(id) else { continue }
                fx.add { sub.continuation.finish(throwing: MQTTError.subscriptionRejected(filter: sub.filter, reason: reason)) }
            }
        case .ignore, .ignoreRetried:
            break
        }
    }

    /// Counts and logs a publish the broker refused with `reason` (a `notify` waiter's callback
    /// hears the reason itself; it is counted, not logged).
    private mutating func refused(_ waiter: AckWaiter, _ reason: MQTTReasonCode, _ fx: inout ClientEffects) {
        let topic: String
        switch waiter {
        case .publish(_, _, _, let t), .ignoreRetried(let t): topic = t
        case .notify:
            statistics.messagesRefused += 1
            return
        case .subscribe, .unsubscribe, .resubscribe, .ignore:
            return
        }
        statistics.messagesRefused += 1
        fx.add { [logger] in logger.warning("the broker refused the message to \(topic): \(reason)") }
    }

    /// Queues `message` for after the next CONNACK.
    mutating func enqueue(_ message: MQTTMessage, timeToLive: Duration?, now: Duration, endpoint: String) throws {
        if queue.capacity == 0 { throw MQTTError.notConnected(endpoint: endpoint) }
        let expired = try queue.enqueue(message, now: now, timeToLive: timeToLive)
        statistics.messagesExpired += expired
        statistics.messagesQueued += 1
    }

    /// Whether any subscription other than the removed one still uses `filter`.
    func filterInUse(_ filter: String) -> Bool { keysByFilter[filter] != nil }
}
