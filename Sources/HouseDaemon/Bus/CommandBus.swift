import HouseCore
import HouseMQTT
import Synchronization

/// The one serial command path: every source (MQTT `set` topics, intent requests, the mode topic,
/// routines, rules, timed mode reverts, relay events) submits a `HouseCommand`, and one consumer
/// (`CommandBusService`) takes them one at a time, in order, through the gateway. No part of
/// another command can run in the middle of one, so a reply, its donation and its mode change
/// always belong to the command that caused them.
///
/// Commands from outside (`submit`) are held to `capacity`: a burst beyond it is refused at once
/// with a busy reply the sender sees, never dropped silently. What the house learns by itself
/// (`note`: relay events, peer states) is always queued, as its sources are bounded.
final class CommandBus: Sendable {
    /// One queued command and how to answer whoever submitted it.
    struct Job: Sendable {
        let command: HouseCommand
        let answer: @Sendable (IntentReply) -> Void
    }

    /// How many commands from outside may wait at once.
    static let defaultCapacity = 256

    private struct State {
        var jobs: [Job] = []
        var head = 0
        var consumer: CheckedContinuation<Job?, Never>?
        var finished = false

        var waiting: Int { jobs.count - head }

        mutating func pop() -> Job? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            head += 1
            if head > 64 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int = CommandBus.defaultCapacity) {
        self.capacity = capacity
    }

    /// Queues `command` and waits for its reply. When `capacity` commands already wait, or the
    /// bus has stopped, the reply says so at once (status `inProgress`: try again shortly).
    func submit(_ command: HouseCommand, id: String = "") async -> IntentReply {
        await enqueue(command, id: id).wait() ?? IntentReply(id: id, error: "the wait for the answer was cancelled")
    }

    /// Queues `command` now and returns where its reply will be: a source that reads messages in
    /// order queues each at once and waits for the answers out of line, so a burst reaches the
    /// bus together (and is committed together). A refusal is there at once.
    func enqueue(_ command: HouseCommand, id: String = "") -> OneShot<IntentReply> {
        let reply = OneShot<IntentReply>()
        switch enqueue(Job(command: command) { reply.fulfill($0) }, bounded: true) {
        case .queued: break
        case .full(let waiting): reply.fulfill(Self.busy(id: id, waiting: waiting))
        case .stopped: reply.fulfill(IntentReply(id: id, error: "the controller is shutting down"))
        }
        return reply
    }

    /// Queues something the house learned by itself; nobody waits for it. False when the bus has stopped.
    @discardableResult
    func note(_ command: HouseCommand) -> Bool {
        if case .stopped = enqueue(Job(command: command) { _ in }, bounded: false) { return false }
        return true
    }

    /// The next command, waiting for one; nil once `finish()` was called and the queue is empty.
    func next() async -> Job? {
        await withCheckedContinuation { (c: CheckedContinuation<Job?, Never>) in
            let ready: Job?? = state.withLock { s in
                if let job = s.pop() { return .some(job) }
                if s.finished { return .some(nil) }
                s.consumer = c
                return .none
            }
            if let ready { c.resume(returning: ready) }
        }
    }

    /// The next command if one waits now, without waiting.
    func nextIfWaiting() -> Job? {
        state.withLock { $0.pop() }
    }

    /// Stops taking commands; those already queued are still handed out by `next()`.
    func finish() {
        let consumer = state.withLock { s -> CheckedContinuation<Job?, Never>? in
            s.finished = true
            defer { s.consumer = nil }
            return s.consumer
        }
        consumer?.resume(returning: nil)
    }

    /// Commands waiting now.
    var waiting: Int { state.withLock { $0.waiting } }

    private enum Enqueued { case queued, full(waiting: Int), stopped }

    private func enqueue(_ job: Job, bounded: Bool) -> Enqueued {
        let (result, consumer): (Enqueued, CheckedContinuation<Job?, Never>?) = state.withLock { s in
            if s.finished { return (.stopped, nil) }
            if let c = s.consumer {
                s.consumer = nil
                return (.queued, c)
            }
            if bounded && s.waiting >= capacity { return (.full(waiting: s.waiting), nil) }
            s.jobs.append(job)
            return (.queued, nil)
        }
        consumer?.resume(returning: job)
        return result
    }

    static func busy(id: String, waiting: Int) -> IntentReply {
        var reply = IntentReply(id: id, outcomes: [])
        reply.status = IntentOutcome.Status.inProgress.rawValue
        reply.phase = "resolve"
        reply.dialog = "The house is busy: \(waiting) commands are waiting. Try again shortly."
        return reply
    }
}
