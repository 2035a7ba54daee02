/// Side effects (continuation resumes, stream yields/finishes) collected under the client's lock
/// and run after it is released.
struct Effects: Sendable {
    private var actions: [@Sendable () -> Void] = []
    mutating func add(_ action: @escaping @Sendable () -> Void) { actions.append(action) }
    func run() { for action in actions { action() } }
}

/// Who waits for a libmosquitto acknowledgement (by message id).
enum AckWaiter: Sendable {
    case publish(MQTTQoS, CheckedContinuation<Void, any Error>)
    case subscribe(CheckedContinuation<[Int32]?, Never>)
    case unsubscribe(CheckedContinuation<Void, Never>)
    /// Re-subscription after CONNACK, for these subscription ids.
    case resubscribe([UInt64])
    /// Fire-and-forget (implicit unsubscribe, QoS 0 flush/birth).
    case ignore
    /// Fire-and-forget QoS 1/2 publish (flushed queue, birth message): libmosquitto resends it
    /// after a reconnect, so it stays outstanding across a connection loss.
    case ignoreRetried
}

/// An acknowledgement that arrived before its waiter was registered.
enum AckEvent: Sendable {
    case published
    case subscribed([Int32])
    case unsubscribed
}

/// The mutable state of an `MQTTClient`, always accessed under its mutex.
struct ClientState: Sendable {
    enum Phase: Sendable { case idle, connecting, connected, disconnected, closing, closed }

    struct Subscription: Sendable {
        let filter: String
        let qos: MQTTQoS
        let continuation: AsyncThrowingStream<MQTTMessage, any Error>.Continuation
    }

    var phase: Phase = .idle
    var publicState: MQTTConnectionState = .idle
    var observers: [UInt64: AsyncStream<MQTTConnectionState>.Continuation] = [:]
    var subscriptions: [UInt64: Subscription] = [:]
    var nextID: UInt64 = 0
    var pending: [Int32: AckWaiter] = [:]
    var early: [Int32: AckEvent] = [:]
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

    init(queueCapacity: Int, random: any RandomNumberGenerator & Sendable) {
        self.queue = MQTTOfflineQueue(capacity: queueCapacity)
        self.random = random
    }

    var isClosing: Bool { phase == .closing || phase == .closed }

    mutating func makeID() -> UInt64 {
        nextID += 1
        return nextID
    }

    /// Publishes a new connection state to every observer.
    mutating func transition(to new: MQTTConnectionState, _ fx: inout Effects) {
        publicState = new
        for observer in observers.values { observer.yield(new) }
    }

    /// Registers a waiter for `mid`, completing it at once if its acknowledgement came early.
    mutating func register(_ mid: Int32, _ waiter: AckWaiter, _ fx: inout Effects) {
        if let event = early.removeValue(forKey: mid) {
            complete(waiter, with: event, &fx)
        } else {
            pending[mid] = waiter
        }
    }

    mutating func complete(_ waiter: AckWaiter, with event: AckEvent, _ fx: inout Effects) {
        switch waiter {
        case .publish(_, let c):
            fx.add { c.resume() }
        case .subscribe(let c):
            if case .subscribed(let codes) = event { fx.add { c.resume(returning: codes) } } else { fx.add { c.resume(returning: nil) } }
        case .unsubscribe(let c):
            fx.add { c.resume() }
        case .resubscribe(let ids):
            guard case .subscribed(let codes) = event, let code = codes.first, code > 2 else { return }
            for id in ids {
                guard let sub = subscriptions.removeValue(forKey: id) else { continue }
                fx.add { sub.continuation.finish(throwing: MQTTError.subscriptionRejected(filter: sub.filter)) }
            }
        case .ignore, .ignoreRetried:
            break
        }
    }

    /// Queues `message` for after the next CONNACK.
    mutating func enqueue(_ message: MQTTMessage, timeToLive: Duration?, now: Duration, endpoint: String) throws {
        if queue.capacity == 0 { throw MQTTError.notConnected(endpoint: endpoint) }
        let expired = try queue.enqueue(message, now: now, timeToLive: timeToLive)
        statistics.messagesExpired += expired
        statistics.messagesQueued += 1
    }

    /// Whether any subscription other than the removed one still uses `filter`.
    func filterInUse(_ filter: String) -> Bool { subscriptions.values.contains { $0.filter == filter } }
}
