import HouseMQTT
import Logging
import ServiceLifecycle
import Signals

/// The command bus's one consumer: takes each command in order and has the gateway carry it out
/// to the end before the next. Started before every source of commands and stopped after them,
/// it finishes what was queued before it returns.
///
/// Group commit: the commands waiting together are carried out one after the other, then what
/// they wrote is committed in one transaction, and only then are they answered. An acknowledged
/// command is on disk (a kill -9 right after the reply loses nothing), and a burst costs one
/// commit rather than one per command. The commit runs on the committer's own thread while the
/// bus carries on with the next commands (whose answers wait for their own commit, after this
/// one). How long a group goes on: `CommandGroup`.
struct CommandBusService: Service {
    let bus: CommandBus
    let gateway: IntentGateway
    let committer: StateCommitter
    /// Told after every command (the page's live view watches it).
    let changes: ChangeFeed
    let logger: Logger
    /// The most commands answered after one commit.
    static let batch = 256
    /// The most commands of a group nobody waits on. Their writes wait for a commit together
    /// (at most two groups' worth while the disk falls behind).
    static let unansweredBatch = 1024
    /// A group lingers (see `CommandGroup.lingers`) for the commands that come within this of
    /// each other before it is committed: fewer, larger commits. A command alone that somebody
    /// waits on is committed at once, and no state waits for a commit (states go out at the
    /// relay's edge).
    static let linger: Duration = .milliseconds(2)
    /// The longest a command waits for the MQTT client's backlog to shrink (see `perform`).
    static let backlogWait: Duration = .seconds(1)

    func run() async throws {
        await withGracefulShutdownHandler {
            // What the loop runs outside the actors (waiting on the bus, on a commit) runs on the
            // lane too: a command offered from the MQTT thread wakes it right there.
            await withTaskExecutorPreference(gateway.service.executor) {
                await consume(on: gateway)
            }
        } onGracefulShutdown: {
            bus.finish()
        }
        if bus.waiting > 0 { logger.warning("command bus stopped with \(bus.waiting) commands waiting") }
    }

    /// The loop, on the engine's lane (the gateway's executor): waking it for a command, and
    /// each call into the gateway, the house service and the relay bank, needs no other thread.
    private func consume(on gateway: isolated IntentGateway) async {
        // The commit of the previous batch: at most one is in flight, so the commands done and
        // not yet answered stay within two batches however far the disk falls behind.
        var inFlight: OneShot<Void>? = nil
        var underLoad = false
        while let first = await bus.next() {
            // Only the replies someone waits for are kept until the commit: a flood's plain set
            // commands are answered by nobody, and 512 replies (two groups) held 0.5 MB.
            var group = CommandGroup(answeredLimit: Self.batch, unansweredLimit: Self.unansweredBatch)
            var answers: [(answer: @Sendable (IntentReply) -> Void, reply: IntentReply)] = []
            func carryOut(_ job: CommandBus.Job) async {
                let reply = await perform(job)
                group.carried(answered: job.answer != nil)
                if let answer = job.answer { answers.append((answer, reply)) }
            }
            await carryOut(first)
            while group.takesMore, let job = bus.nextIfWaiting() { await carryOut(job) }
            if group.lingers(underLoad: underLoad) {
                while group.takesMore, let job = await bus.next(within: Self.linger) { await carryOut(job) }
            }
            underLoad = group.count > 1
            if let inFlight { _ = await inFlight.wait() }
            let batch = answers, committed = OneShot<Void>()
            committer.commit {
                for (answer, reply) in batch { answer(reply) }
                committed.fulfill(())
            }
            inFlight = committed
        }
        // The answers of the last batch go out before the bus is done.
        if let inFlight { _ = await inFlight.wait() }
    }

    private func perform(_ job: CommandBus.Job) async -> IntentReply {
        // A command's state and event wait in the MQTT client while the broker acknowledges more
        // slowly than commands come (a flood): past a backlog, the next command waits on the bus
        // instead, where it costs a fifth of what its messages would (and, with the embedded
        // broker, closes its intake valve). Bounded: a broker that stops acknowledging never
        // holds the relays up for longer than `backlogWait`.
        await gateway.client.waitForRoom(atMost: Self.backlogWait)
        if let expires = job.expires, gateway.clock.monotonic.now >= expires {
            logger.warning("a command expired before its turn (its message expiry ran out while it waited): not carried out")
            return IntentReply(id: "", status: .expired, phase: .resolve,
                               dialog: "The command expired (its message expiry ran out) before it could be carried out.")
        }
        let reply = await gateway.perform(job.command)
        changes.changed()
        return reply
    }
}
