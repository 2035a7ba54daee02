import DequeModule
import HouseCore
import HouseMQTT
import Signals
import Synchronization

/// The one serial command path: every source (MQTT `set` topics, intent requests, the mode topic,
/// routines, rules, timed mode reverts, relay events) submits a `HouseCommand`, and one consumer
/// (`CommandBusService`) takes them one at a time, in order, through the gateway. No part of
/// another command can run in the middle of one, so a reply, its donation and its mode change
/// always belong to the command that caused them.
///
/// Commands from outside are held to `capacity`. A task (`submit`, `enqueue`) beyond it waits for
/// room (back-pressure). The MQTT thread (`offer`) is never held, as it also reads the PUBACKs of
/// what the controller publishes (held, libmosquitto's list of unacknowledged messages grows, and
/// every publish walks it): beyond the capacity its command is refused with a "busy" answer, which
/// goes to the sender's reply topic and to the log. Nothing is dropped silently. What the house
/// learns by itself (`note`: inputs, peer states, timer ticks) is always queued, as its sources
/// are bounded.
final class CommandBus: Sendable {
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

    init(capacity: Int = CommandBus.defaultCapacity) {
        self.capacity = capacity
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

}
