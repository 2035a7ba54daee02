import HouseCore
import HouseMQTT
import Logging
import ServiceLifecycle
import Signals

/// The command bus's one consumer: takes each command in order, has the engine carry it out to
/// its end, then publishes and records what it did (`Recorder`) and tells the timers when the
/// engine next needs a tick. Started before every source of commands and stopped after them, it
/// finishes what was queued, then applies the relays' shutdown policies.
///
/// The commands waiting together are carried out one after the other; those somebody waits for
/// are answered once what they wrote is committed (an answered command is on disk), the commit
/// on the recorder's thread while the bus goes on with the next commands.
struct CommandBusService: Service {
    let bus: CommandBus
    let engine: HouseEngine
    let recorder: Recorder
    let timers: TimerSchedule
    let coordination: Coordination
    /// Told after every command (the page's live view watches it).
    let changes: ChangeFeed
    let logger: Logger
    /// The most commands answered after one commit.
    static let batch = 256
    /// The longest a command waits for the MQTT client's backlog to shrink (see `perform`).
    static let backlogWait: Duration = .seconds(1)

    func run() async throws {
        timers.set(await engine.nextWake)
        await withGracefulShutdownHandler {
            await consume()
        } onGracefulShutdown: {
            bus.finish()
        }
        if bus.waiting > 0 { logger.warning("command bus stopped with \(bus.waiting) commands waiting") }
        // Last: each relay's shutdown policy, published and recorded before the final commit.
        let (_, effects) = await engine.perform(.shutdown, acting: coordination.isActing)
        recorder.apply(effects)
    }

    private func consume() async {
        // The commit of the previous batch's answers: at most one is in flight, so the answers
        // waiting stay within two batches however far the disk falls behind.
        var inFlight: OneShot<Void>? = nil
        while let first = await bus.next() {
            var answers: [(answer: @Sendable (IntentReply) -> Void, reply: IntentReply)] = []
            var job: CommandBus.Job? = first
            var count = 0
            while let next = job {
                let reply = await perform(next)
                if let answer = next.answer { answers.append((answer, reply)) }
                count += 1
                job = count < Self.batch ? bus.nextIfWaiting() : nil
            }
            guard !answers.isEmpty else { continue }
            if let inFlight { _ = await inFlight.wait() }
            let batch = answers, committed = OneShot<Void>()
            recorder.commit {
                for (answer, reply) in batch { answer(reply) }
                committed.fulfill(())
            }
            inFlight = committed
        }
        // The answers of the last batch go out before the bus is done.
        if let inFlight { _ = await inFlight.wait() }
    }

    private func perform(_ job: CommandBus.Job) async -> IntentReply {
        // A command's messages wait in the MQTT client while the broker acknowledges more slowly
        // than commands come (a flood): past a backlog, the next command waits on the bus
        // instead, where it costs a fifth of what its messages would. Bounded: a broker that
        // stops acknowledging never holds the relays up for longer than `backlogWait`.
        await recorder.client.waitForRoom(atMost: Self.backlogWait)
        if let expires = job.expires, engine.clock.monotonic.now >= expires {
            logger.warning("a command expired before its turn (its message expiry ran out while it waited): not carried out")
            return IntentReply(id: "", status: .expired, phase: .resolve,
                               dialog: "The command expired (its message expiry ran out) before it could be carried out.")
        }
        if case .request(let request, _) = job.command, case .history(let limit) = request.body {
            return historyReply(id: request.id, limit: limit)
        }
        let (reply, effects) = await engine.perform(job.command, acting: coordination.isActing)
        recorder.apply(effects)
        timers.set(effects.wake)
        changes.changed()
        if case .request(let request, _) = job.command, case .intent(.query(let query)) = request.body, query.queryType == .deviceStates {
            var reply = reply
            reply.coordination = coordination.report(in: engine.configuration, nodes: await engine.nodeStatuses)
            return reply
        }
        return reply
    }

    /// The latest `limit` history records, as the answer to a history request.
    private func historyReply(id: String, limit: Int) -> IntentReply {
        do {
            let records = try recorder.store.history(limit: max(1, min(limit, 1000)))
            let calendar = HouseCalendar(house: engine.configuration.house)
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
}
