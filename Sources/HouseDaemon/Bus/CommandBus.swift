import DequeModule
import HouseCore
import HouseMQTT
import Logging
import ServiceLifecycle
import Signals
import Synchronization

/// The one serial command path: every source (the router's MQTT topics, the page, routines,
/// inputs, the timers) submits a `HouseCommand`, and the bus's one consumer (`run`, a Service)
/// takes them one at a time, in order: the engine carries each out to its end, then the consumer
/// publishes its messages, queues its records in the state store, logs its lines and tells the
/// timers when the engine next needs a tick. No part of another command can run in the middle of
/// one, so a reply, its donation and its mode change always belong to the command that caused them.
///
/// The commands waiting together are carried out one after the other; those somebody waits for
/// are answered once what they wrote is committed (an answered command is on disk), the commit on
/// the store's thread while the bus goes on with the next commands. What nobody waits for is
/// committed by `StateRecorderService` within its interval.
///
/// Commands from outside are held to `capacity`. A task (`submit`, `enqueue`) beyond it waits for
/// room (back-pressure). The MQTT thread (`offer`) is never held, as it also reads the PUBACKs of
/// what the controller publishes (held, libmosquitto's list of unacknowledged messages grows, and
/// every publish walks it): beyond the capacity its command is refused with a "busy" answer, which
/// goes to the sender's reply topic and to the log. Nothing is dropped silently. What the house
/// learns by itself (`note`: inputs, peer states, timer ticks) is always queued, as its sources
/// are bounded.
final class CommandBus: Service, Sendable {
    /// What the consumer carries each command to, and its effects through.
    struct Consumer: Sendable {
        let engine: HouseEngine
        let store: StateStore
        let client: MQTTClient
        let timers: TimerSchedule
        let coordination: Coordination
        /// Told after every command (the page's live view watches it).
        let changes: ChangeFeed
        let logger: Logger
    }

    /// One queued command and how to answer whoever submitted it.
    struct Job: Sendable {
        let command: HouseCommand
        /// Nil when nobody waits for the answer.
        let answer: (@Sendable (IntentReply) -> Void)?
        /// Counted against `capacity` (a command from outside, not a note).
        var bounded = false
        /// When the command runs out (its MQTT 5 message expiry), on the controller's monotonic
        /// clock: taken after that, it is answered `expired` and not carried out.
        var expires: WallInstant? = nil
    }

    /// How many commands from outside may wait. Far beyond any burst of a house (a scene, a
    /// Node-RED flow, 10,000 commands back to back from a test): a few seconds of work.
    static let defaultCapacity = 16_384

    private struct State {
        /// A ring buffer: a job taken is gone at once (its strings and closure freed), and the
        /// queue never moves its contents to drop the front.
        var jobs = Deque<Job>()
        /// The most jobs waiting since the queue was last empty: once a burst is over, the ring
        /// it grew is given back (a burst of 10,000 left 700 kB behind).
        var deepest = 0
        var consumer: CheckedContinuation<Job?, Never>?
        /// Sources waiting for room in the queue, first come first served.
        var waitingForRoom: [CheckedContinuation<Void, Never>] = []
        var finished = false

        /// Jobs handed to the consumer since the bus was made.
        var taken = 0
        /// The most commands from outside that ever waited at once.
        var mostWaiting = 0

        var waiting: Int { jobs.count }
        /// The waiting commands from outside (what `capacity` bounds).
        var waitingBounded = 0

        /// The most jobs whose ring stays allocated while the queue is empty.
        static let keptRing = 1_024

        /// The next job, and the sources to let in now that there is room: all of them once the
        /// queue is down to half its capacity (not one wake-up per job taken).
        mutating func pop(capacity: Int) -> (job: Job, admit: [CheckedContinuation<Void, Never>])? {
            guard let job = jobs.popFirst() else { return nil }
            taken += 1
            if job.bounded { waitingBounded -= 1 }
            if jobs.isEmpty, deepest > Self.keptRing {
                jobs = Deque()
                deepest = 0
            }
            guard !waitingForRoom.isEmpty, waitingBounded <= capacity / 2 else { return (job, []) }
            defer { waitingForRoom = [] }
            return (job, waitingForRoom)
        }
    }

    let capacity: Int
    private let state = Mutex(State())
    /// Nil for a bus whose commands are taken by hand (`next()`, the tests).
    private let consumer: Consumer?

    init(capacity: Int = CommandBus.defaultCapacity, consumer: Consumer? = nil) {
        self.capacity = capacity
        self.consumer = consumer
    }

    /// Queues `command` (waiting for room when `capacity` commands wait) and waits for its reply.
    /// Once the bus has stopped, the reply says so.
    func submit(_ command: HouseCommand, id: String = "") async -> IntentReply {
        await enqueue(command, id: id).wait() ?? IntentReply(id: id, error: "the wait for the answer was cancelled")
    }

    /// Queues `command`, waiting for room when `capacity` commands wait, and returns where its
    /// reply will be: a source that reads messages in order queues each as it comes and waits
    /// for the answers out of line, so a burst reaches the bus together (and is committed
    /// together). Once the bus has stopped, the reply says so at once.
    func enqueue(_ command: HouseCommand, id: String = "") async -> OneShot<IntentReply> {
        let reply = OneShot<IntentReply>()
        let job = Job(command: command) { reply.fulfill($0) }
        while true {
            switch enqueue(job, bounded: true) {
            case .queued: return reply
            case .full: await waitForRoom()
            case .stopped:
                reply.fulfill(IntentReply(id: id, error: "the controller is shutting down"))
                return reply
            }
        }
    }

    /// Queues `command` from a thread that must not wait, such as libmosquitto's network
    /// thread. `answer` (nil: nobody waits) is called with the reply, on the thread that commits
    /// the command. A refused command ("busy" beyond the capacity, or the controller shutting
    /// down) is answered at once, on the caller's thread, and its refusal returned (nil: queued).
    @discardableResult
    func offer(_ command: HouseCommand, id: String = "", expires: WallInstant? = nil,
               answer: (@Sendable (IntentReply) -> Void)?) -> IntentReply? {
        let refusal: IntentReply
        switch enqueue(Job(command: command, answer: answer, expires: expires), bounded: true) {
        case .queued:
            return nil
        case .full:
            refusal = IntentReply(id: id, status: .busy, phase: .resolve,
                                  dialog: "The controller is busy: \(capacity) commands are waiting. Send it again later.")
        case .stopped:
            refusal = IntentReply(id: id, error: "the controller is shutting down")
        }
        answer?(refusal)
        return refusal
    }

    /// Returns once the queue has room (or the bus stopped).
    private func waitForRoom() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.finished || s.waitingBounded < capacity { return true }
                s.waitingForRoom.append(c)
                return false
            }
            if now { c.resume() }
        }
    }

    /// Queues something the house learned by itself; nobody waits for it. False when the bus has stopped.
    @discardableResult
    func note(_ command: HouseCommand) -> Bool {
        if case .stopped = enqueue(Job(command: command, answer: nil), bounded: false) { return false }
        return true
    }

    /// The next command, waiting for one; nil once `finish()` was called and the queue is empty,
    /// or when the waiting task is cancelled (a command that comes at that moment is either
    /// returned or left in the queue, never lost).
    func next() async -> Job? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Job?, Never>) in
                let (ready, admit): (Job??, [CheckedContinuation<Void, Never>]) = state.withLock { s in
                    if let (job, admit) = s.pop(capacity: capacity) { return (.some(job), admit) }
                    if s.finished || Task.isCancelled { return (.some(nil), []) }
                    s.consumer = c
                    return (.none, [])
                }
                for waiter in admit { waiter.resume() }
                if let ready { c.resume(returning: ready) }
            }
        } onCancel: {
            // Here too: a command handed to the continuation, or nil from here, never both.
            let waiting = state.withLock { s -> CheckedContinuation<Job?, Never>? in
                defer { s.consumer = nil }
                return s.consumer
            }
            waiting?.resume(returning: nil)
        }
    }

    /// The next command if one waits now, without waiting.
    func nextIfWaiting() -> Job? {
        guard let (job, admit) = state.withLock({ $0.pop(capacity: capacity) }) else { return nil }
        for waiter in admit { waiter.resume() }
        return job
    }

    /// Stops taking commands; those already queued are still handed out by `next()`.
    func finish() {
        let (consumer, admits) = state.withLock { s -> (CheckedContinuation<Job?, Never>?, [CheckedContinuation<Void, Never>]) in
            s.finished = true
            defer {
                s.consumer = nil
                s.waitingForRoom = []
            }
            return (s.consumer, s.waitingForRoom)
        }
        consumer?.resume(returning: nil)
        for admit in admits { admit.resume() }
    }

    /// Commands waiting now.
    var waiting: Int { state.withLock { $0.waiting } }

    /// Jobs handed to the consumer so far: with the commands sent, how many jobs a command makes.
    var taken: Int { state.withLock { $0.taken } }

    /// The most commands from outside that ever waited at once (at most `capacity`).
    var mostWaiting: Int { state.withLock { $0.mostWaiting } }

    private enum Enqueued { case queued, full, stopped }

    private func enqueue(_ job: Job, bounded: Bool) -> Enqueued {
        let (result, consumer): (Enqueued, CheckedContinuation<Job?, Never>?) = state.withLock { s in
            if s.finished { return (.stopped, nil) }
            if let c = s.consumer {
                s.consumer = nil
                s.taken += 1
                return (.queued, c)
            }
            if bounded && s.waitingBounded >= capacity { return (.full, nil) }
            var job = job
            job.bounded = bounded
            if bounded {
                s.waitingBounded += 1
                s.mostWaiting = max(s.mostWaiting, s.waitingBounded)
            }
            s.jobs.append(job)
            s.deepest = max(s.deepest, s.jobs.count)
            return (.queued, nil)
        }
        consumer?.resume(returning: job)
        return result
    }

    // MARK: The consumer

    /// The most commands answered after one commit.
    static let batch = 256
    /// The longest a command waits for the MQTT client's backlog to shrink (see `perform`).
    static let backlogWait: Duration = .seconds(1)

    /// The consumer: started before every source of commands and stopped after them, it
    /// finishes what was queued, then applies the relays' shutdown policies.
    func run() async throws {
        guard let consumer else { return }
        consumer.timers.set(await consumer.engine.nextWake)
        await withGracefulShutdownHandler {
            await consume(consumer)
        } onGracefulShutdown: {
            self.finish()
        }
        if waiting > 0 { consumer.logger.warning("command bus stopped with \(waiting) commands waiting") }
        // Last: each relay's shutdown policy, published and recorded before the final commit.
        let (_, effects) = await consumer.engine.perform(.shutdown, acting: consumer.coordination.isActing)
        apply(effects, consumer)
    }

    private func consume(_ consumer: Consumer) async {
        // The commit of the previous batch's answers: at most one is in flight, so the answers
        // waiting stay within two batches however far the disk falls behind.
        var inFlight: OneShot<Void>? = nil
        while let first = await next() {
            var answers: [(answer: @Sendable (IntentReply) -> Void, reply: IntentReply)] = []
            var job: CommandBus.Job? = first
            var count = 0
            while let next = job {
                let reply = await perform(next, consumer)
                if let answer = next.answer { answers.append((answer, reply)) }
                count += 1
                job = count < Self.batch ? nextIfWaiting() : nil
            }
            guard !answers.isEmpty else { continue }
            if let inFlight { _ = await inFlight.wait() }
            let batch = answers, committed = OneShot<Void>()
            consumer.store.commit(logger: consumer.logger) {
                for (answer, reply) in batch { answer(reply) }
                committed.fulfill(())
            }
            inFlight = committed
        }
        // The answers of the last batch go out before the bus is done.
        if let inFlight { _ = await inFlight.wait() }
    }

    private func perform(_ job: Job, _ consumer: Consumer) async -> IntentReply {
        let (engine, coordination) = (consumer.engine, consumer.coordination)
        // A command's messages wait in the MQTT client while the broker acknowledges more slowly
        // than commands come (a flood): past a backlog, the next command waits on the bus
        // instead, where it costs a fifth of what its messages would. Bounded: a broker that
        // stops acknowledging never holds the relays up for longer than `backlogWait`.
        await consumer.client.waitForRoom(atMost: Self.backlogWait)
        if let expires = job.expires, engine.clock.monotonic.now >= expires {
            consumer.logger.warning("a command expired before its turn (its message expiry ran out while it waited): not carried out")
            return IntentReply(id: "", status: .expired, phase: .resolve,
                               dialog: "The command expired (its message expiry ran out) before it could be carried out.")
        }
        if case .request(let request, _) = job.command, case .history(let limit) = request.body {
            return historyReply(id: request.id, limit: limit, consumer)
        }
        let (reply, effects) = await engine.perform(job.command, acting: coordination.isActing, replying: job.answer != nil)
        apply(effects, consumer)
        consumer.timers.set(effects.wake)
        consumer.changes.changed()
        if case .request(let request, _) = job.command, case .intent(.query(let query)) = request.body, query.queryType == .deviceStates {
            var reply = reply
            reply.coordination = coordination.report(in: engine.configuration, nodes: await engine.nodeStatuses)
            return reply
        }
        return reply
    }

    /// The latest `limit` history records, as the answer to a history request.
    private func historyReply(id: String, limit: Int, _ consumer: Consumer) -> IntentReply {
        do {
            let records = try consumer.store.history(limit: max(1, min(limit, 1000)))
            let calendar = HouseCalendar(house: consumer.engine.configuration.house)
            let lines = records.map { "\(calendar.iso8601Text($0.at)) \($0.source) \($0.summary): \($0.outcome) — \($0.dialog)" }
            var reply = IntentReply(id: id, outcomes: [])
            reply.status = .done
            reply.phase = .handle
            reply.dialog = lines.isEmpty ? "No history yet." : lines.joined(separator: "\n")
            return reply
        } catch {
            return IntentReply(id: id, error: "\(error)")
        }
    }

    /// Publishes, queues and logs what one command did, in that order: its messages at QoS 1
    /// without waiting for the broker (libmosquitto sends them again until acknowledged), its
    /// records for the store's next grouped commit.
    private func apply(_ effects: Effects, _ consumer: Consumer) {
        for message in effects.messages {
            consumer.client.send(MQTTMessage(topic: message.topic, payload: message.payload, qos: .atLeastOnce, retain: message.retain),
                                 loggingFailuresTo: consumer.logger)
        }
        for record in effects.records {
            do { try consumer.store.keep(record) } catch { consumer.logger.error("\(error)") }
        }
        for line in effects.logs {
            switch line.level {
            case .debug: consumer.logger.debug("\(line.text)")
            case .info: consumer.logger.info("\(line.text)")
            case .warning: consumer.logger.warning("\(line.text)")
            case .error: consumer.logger.error("\(line.text)")
            }
        }
    }
}
