import DequeModule
import HouseCore
import HouseMQTT
import Logging
import Signals
import Synchronization

/// Publishes the house's events on `<base>/events`, and holds them back while nobody listens.
///
/// An MQTT 5 broker answers a QoS 1 publish that no subscription matches with PUBACK reason
/// 0x10 (mosquitto 2 and the embedded broker do). After such an answer the outlet stops sending
/// events and keeps them, oldest first; at most every `EventOutletService.interval` (or sooner
/// when `probeAt` are waiting: then `publish` sends it itself) it sends the oldest one as a probe:
/// - answered 0x10 again: nobody subscribed when the broker took the probe, which was after every
///   event kept when it left, so those are let go (nobody they were for);
/// - answered otherwise (someone subscribes now, or a 3.1.1 connection, or a refusal): the rest go
///   out in order, and every later event goes out as it happens, until an event is answered
///   0x10 again.
/// So a subscriber gets every event that happened while it was subscribed, in order: the first
/// ones after it subscribes may come up to one interval late, and it may get some from up to one
/// interval before it subscribed. Only a subscription shorter than one interval can miss an
/// event. The history keeps every event either way.
///
/// Thread-safe: events come from the house's lane (and the relay bank's watchdog), answers on the
/// MQTT network thread (or on the publishing thread: an offline client's), probes from
/// `EventOutletService` and from `publish` (with `probeAt` kept). No lock is held while the
/// client is called (its answer may come on the calling thread).
public final class EventOutlet: Sendable {
    /// An event as it waits: a donation's JSON is written only if it goes out.
    public enum Event: Sendable {
        /// A handled intent's record (`DonationEvent`), boxed: the queue of kept events holds
        /// a pointer each, not a donation's inline size.
        indirect case donation(Donation)
        /// Any other event, its JSON written already (a refusal, a watchdog, `obstructed`).
        case json(String)

        var payload: String {
            switch self {
            case .donation(let donation): donation.event.json
            case .json(let text): text
            }
        }
    }

    /// What the outlet did so far (the bench prints it).
    public struct Counts: Sendable, Equatable {
        /// Events sent to the broker (probes included).
        public var sent = 0
        /// Events let go, never sent, because a probe found that nobody subscribed.
        public var unheard = 0
        /// Probes sent (each one of the kept events, to ask whether somebody listens now).
        public var probes = 0
    }

    private enum Phase {
        /// Events go out as they happen.
        case live
        /// The broker said nobody listens: events are kept until a probe says otherwise.
        case quiet
        /// A probe found a listener: the kept events are going out; new ones join them.
        case flushing
    }

    private struct Probe {
        /// The probe's own number.
        let number: UInt64
        /// Every event numbered below this was kept or sent before the probe left.
        let covers: UInt64
        let sentAt: ContinuousClock.Instant
    }

    private struct State {
        var phase = Phase.live
        /// Kept events; `held[0]` is numbered `firstHeld`, and while not live
        /// `firstHeld + held.count == next`.
        var held = Deque<Event>()
        var firstHeld: UInt64 = 0
        /// The number the next event gets.
        var next: UInt64 = 0
        /// A 0x10 for an event numbered below this is from before the last listener was found.
        var liveSince: UInt64 = 0
        var probe: Probe?
        /// A `flush` is sending.
        var flushing = false
        var lastProbe: ContinuousClock.Instant
        var counts = Counts()
        /// Whether a refusal of an event (a failure reason code) was logged.
        var refusalLogged = false
        /// Events a probe let go, freed by the next `publish` or `probe` outside the lock: not
        /// on the MQTT network thread that got the answer, where freeing `probeAt` of them
        /// held up the next command. In a house that goes quiet they wait for its next event
        /// (at most as many as were kept).
        var letGo: [Deque<Event>] = []

        /// `letGo`, for the caller to free once the lock is released.
        mutating func takeLetGo() -> [Deque<Event>] {
            var taken: [Deque<Event>] = []
            swap(&taken, &letGo)
            return taken
        }
    }

    private let state: Mutex<State>
    private let topic: String
    private let client: MQTTClient
    private let logger: Logger
    /// Signalled when a probe is due: `EventOutletService` sends it at `nextProbe`.
    let probeDue = WakeSignal()
    /// With this many events kept a probe goes at once, however recent the last one: a flood
    /// keeps at most about this many (each kept event is a donation's few hundred bytes, and
    /// `make bench` row 5's peak grew 0.7 MB with 1,024).
    static let probeAt = 256
    /// The most events kept, for a probe whose answer is slow to come (a broker that stopped
    /// reading): then they all go out, as after `probeTimeout`. Bounds the memory they hold.
    static let mostKept = 4_096
    /// A probe unanswered this long (the connection went, and the broker lost the session):
    /// every kept event goes out.
    static let probeTimeout: Duration = .seconds(5)

    /// - Parameter topic: `<base>/events`.
    public init(topic: String, client: MQTTClient, logger: Logger) {
        self.topic = topic
        self.client = client
        self.logger = logger
        self.state = Mutex(State(lastProbe: .now))
    }

    /// Publishes `event`, or keeps it while nobody listens.
    public func publish(_ event: Event) {
        enum Step { case send(UInt64), kept, probe, flush }
        let (step, letGo): (Step, [Deque<Event>]) = state.withLock { s in
            let letGo = s.takeLetGo()
            let number = s.next
            s.next += 1
            guard s.phase == .live else {
                s.held.append(event)
                if s.held.count == 1 { probeDue.signal() }
                if s.held.count >= Self.mostKept && s.phase == .quiet { return (.flush, letGo) }
                // With `probeAt` kept the probe goes from here, as the event would have: on the
                // thread of the command that published it, which writes it at once when that
                // is the MQTT thread (waking the probe service and then the MQTT thread for it
                // made a command every `probeAt` a slow one).
                return (s.held.count == Self.probeAt && s.phase == .quiet && s.probe == nil ? .probe : .kept, letGo)
            }
            s.counts.sent += 1
            return (.send(number), letGo)
        }
        // Freed here, outside the lock, after the command's state went out.
        _ = consume letGo
        switch step {
        case .send(let number): send(event, number: number, probe: false)
        case .kept: break
        case .probe: probe()
        case .flush:
            logger.warning("\(Self.mostKept) events kept on \(topic) with no answer to the probe: they go out, and the next ones as they happen")
            flush()
        }
    }

    /// What the outlet did so far.
    public var counts: Counts { state.withLock { $0.counts } }

    /// Whether events are held back now (the broker's last answer said that nobody listens).
    public var isHoldingBack: Bool { state.withLock { $0.phase != .live } }

    /// Changed when the broker's answers stop the events or a probe is answered.
    public let changes = ChangeFeed()

    /// When the next probe may go: one interval after the last, at once with `probeAt` events
    /// kept; nil when none is due (live, none kept, or one in flight that has not timed out).
    func nextProbe(interval: Duration) -> ContinuousClock.Instant? {
        state.withLock { s in
            if let probe = s.probe { return probe.sentAt + Self.probeTimeout }
            guard s.phase == .quiet, !s.held.isEmpty else { return nil }
            return s.held.count >= Self.probeAt ? .now : s.lastProbe + interval
        }
    }

    /// Sends the oldest kept event as a probe (see the type's doc), or gives up on a probe
    /// unanswered for `probeTimeout` and sends everything kept.
    func probe() {
        let now = ContinuousClock.now
        let (step, letGo): (ProbeStep, [Deque<Event>]) = state.withLock { s in
            (Self.probeStep(&s, now: now), s.takeLetGo())
        }
        _ = consume letGo
        switch step {
        case .none: break
        case .send(let event, let number): send(event, number: number, probe: true)
        case .flush:
            logger.warning("no answer to the probe on \(topic) within \(Self.probeTimeout): events go out again as they happen")
            flush()
        }
    }

    private enum ProbeStep { case none, send(Event, UInt64), flush }

    /// What `probe` does, decided under the lock: nothing, send the oldest kept event as a
    /// probe, or give up on a probe unanswered for `probeTimeout`.
    private static func probeStep(_ s: inout State, now: ContinuousClock.Instant) -> ProbeStep {
        if let probe = s.probe {
            guard now >= probe.sentAt + probeTimeout else { return .none }
            s.probe = nil
            s.phase = .flushing
            return .flush
        }
        guard s.phase == .quiet, let first = s.held.popFirst() else { return .none }
        let number = s.firstHeld
        s.firstHeld += 1
        s.probe = Probe(number: number, covers: s.next, sentAt: now)
        s.lastProbe = now
        s.counts.sent += 1
        s.counts.probes += 1
        return .send(first, number)
    }

    /// Sends everything kept, the events that come meanwhile too, then goes live (on a shutdown,
    /// after a probe that found a listener, or one that got no answer).
    /// One caller at a time sends (another one's events join its batches), so they keep their order.
    func flush() {
        let first: Bool = state.withLock { s in
            guard !s.flushing else { return false }
            s.flushing = true
            s.probe = nil
            if s.phase == .quiet { s.phase = .flushing }
            return true
        }
        guard first else { return }
        defer { changes.changed() }
        while true {
            let batch: [(Event, UInt64)]? = state.withLock { s in
                guard !s.held.isEmpty else {
                    s.phase = .live
                    s.flushing = false
                    return nil
                }
                let batch = s.held.enumerated().map { ($0.element, s.firstHeld + UInt64($0.offset)) }
                s.firstHeld += UInt64(s.held.count)
                s.held.removeAll(keepingCapacity: false)
                s.counts.sent += batch.count
                return batch
            }
            guard let batch else { return }
            for (i, (event, number)) in batch.enumerated() {
                if send(event, number: number, probe: false) { continue }
                // The client is closed (a shutdown that did not wait): the rest cannot go either.
                let dropped = state.withLock { s in
                    defer { s.held.removeAll(); s.phase = .live; s.flushing = false }
                    return batch.count - i - 1 + s.held.count
                }
                if dropped > 0 { logger.warning("the MQTT client is closed: \(dropped) more events on \(topic) not sent") }
                return
            }
        }
    }

    /// Hands `event` to the client; false when the client is closed.
    @discardableResult
    private func send(_ event: Event, number: UInt64, probe: Bool) -> Bool {
        let message = MQTTMessage(topic: topic, string: event.payload, qos: .atLeastOnce, retain: false)
        do {
            let delivery = try client.send(message) { [self] reason in
                probe ? probeAnswered(number, reason) : answered(number, reason)
            }
            // Queued offline: no answer will come, so the probe decides nothing.
            if probe, delivery == .queued { probeAnswered(number, .success) }
        } catch MQTTError.clientClosed {
            if probe { probeAnswered(number, .success) }
            return false
        } catch {
            logger.warning("publish \(topic) failed: \(error)")
            if probe { probeAnswered(number, .success) }
        }
        return true
    }

    /// An event that went out as it happened was answered.
    private func answered(_ number: UInt64, _ reason: MQTTReasonCode) {
        guard reason == .noMatchingSubscribers else {
            if reason.isFailure { noteRefusal(reason) }
            return
        }
        let stopped: Bool = state.withLock { s in
            guard s.phase == .live, number >= s.liveSince else { return false }
            s.phase = .quiet
            // Nothing is kept while live: the next event kept is the next one numbered.
            s.firstHeld = s.next
            s.lastProbe = .now
            return true
        }
        if stopped { changes.changed() }
    }

    /// The broker refused an event (its ACL, say): logged once, not at every event.
    private func noteRefusal(_ reason: MQTTReasonCode) {
        let first: Bool = state.withLock { s in
            defer { s.refusalLogged = true }
            return !s.refusalLogged
        }
        if first { logger.warning("the broker refuses the events on \(topic): \(reason)") }
    }

    /// The probe numbered `number` was answered (or, with `success`, cannot be).
    private func probeAnswered(_ number: UInt64, _ reason: MQTTReasonCode) {
        if reason.isFailure { noteRefusal(reason) }
        let listening: Bool = state.withLock { s in
            guard let probe = s.probe, probe.number == number else { return false }
            s.probe = nil
            guard reason == .noMatchingSubscribers else {
                s.phase = .flushing
                s.liveSince = number
                return true
            }
            let unheard = min(Int(probe.covers - s.firstHeld), s.held.count)
            // Moved out whole (the few kept since the probe left are copied back) for the next
            // `publish` or `probe` to free (`State.letGo`).
            if unheard > 0 {
                var gone = Deque<Event>()
                swap(&gone, &s.held)
                s.held.append(contentsOf: gone[unheard...])
                s.letGo.append(gone)
            }
            s.firstHeld += UInt64(unheard)
            s.counts.unheard += unheard
            if !s.held.isEmpty { probeDue.signal() }
            return false
        }
        if listening { flush() }
        changes.changed()
    }
}
