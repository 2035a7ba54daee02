import Foundation
import Synchronization
import HouseBroker
import HouseCore
import HouseMQTT
import HouseTesting
import Testing
@testable import HouseDaemon

/// The one serial command path: commands come out one at a time, in order; a burst beyond the
/// queue is refused with a reply the sender sees; intents arriving together each keep their own
/// reply and donation.
@Suite struct CommandBusTests {
    static func intent(_ n: Int) -> HouseCommand {
        .intent(.query(QueryHouseStatusIntent(queryType: .mode)), source: .mqtt, answers: .none, requestID: "r\(n)")
    }

    static func requestID(_ command: HouseCommand) -> String? {
        if case .intent(_, _, _, let id) = command { return id }
        return nil
    }

    /// A burst waits on the bus: a plain device command and the relay edge it causes are held
    /// inline in the ring (no allocation each), the rest out of line.
    @Test func aWaitingDeviceCommandIsOneSmallSlotOfTheRing() {
        #expect(MemoryLayout<HouseCommand>.size <= 24, "\(MemoryLayout<HouseCommand>.size) bytes")
        #expect(MemoryLayout<CommandBus.Job>.stride <= 80, "\(MemoryLayout<CommandBus.Job>.stride) bytes")
        let command = HouseCommand.setDevice("kitchen-light", .on, confirmed: false)
        guard case .setDevice(let device, let action, let confirmed) = command else {
            Issue.record("\(command)")
            return
        }
        #expect(device == "kitchen-light" && action == .on && !confirmed)
    }

    @Test func commandsComeOutInOrderAndABurstBeyondTheQueueWaitsForRoom() async throws {
        let bus = CommandBus(capacity: 3)
        // Nobody consumes yet: three wait in the queue; the fourth source waits for room.
        var tasks: [Task<IntentReply, Never>] = []
        for n in 0..<3 {
            tasks.append(Task { await bus.submit(Self.intent(n), id: "r\(n)") })
            while bus.waiting < n + 1 { await Task.yield() }
        }
        let fourth = Task { await bus.submit(Self.intent(3), id: "r3") }
        // What the house learns by itself is never held back.
        #expect(bus.note(.nodeStatus(node: "pi-x", online: true)))
        #expect(bus.waiting == 4, "three commands and the note; the fourth command waits for room")
        var order: [String?] = []
        for _ in 0..<5 {
            let job = try #require(await bus.next())
            order.append(Self.requestID(job.command))
            job.answer?(IntentReply(id: Self.requestID(job.command) ?? "", outcomes: []))
        }
        #expect(order.prefix(3) == ["r0", "r1", "r2"] && order[3] == .some(nil) && order[4] == "r3", "\(order)")
        for task in tasks + [fourth] { #expect(await task.value.status == .done) }
    }

    /// The MQTT thread's way in is never held: beyond the capacity its command is refused with
    /// a "busy" answer, at once, and nothing queued is lost; notes still go in.
    @Test func anOfferBeyondTheQueueIsAnsweredBusyAtOnce() async throws {
        let bus = CommandBus(capacity: 2)
        #expect(bus.offer(Self.intent(0), id: "r0", answer: nil) == nil)
        #expect(bus.offer(Self.intent(1), id: "r1") { _ in } == nil)
        let refused = Mutex<IntentReply?>(nil)
        let returned = bus.offer(Self.intent(2), id: "r2") { reply in refused.withLock { $0 = reply } }
        let reply = try #require(refused.withLock { $0 })
        #expect(returned == reply, "the refusal is returned as well as answered")
        #expect(reply.id == "r2" && reply.status == .busy && reply.dialog.contains("busy"), "\(reply)")
        #expect(bus.note(.nodeStatus(node: "pi-x", online: true)))
        var order: [String?] = []
        while let job = bus.nextIfWaiting() { order.append(Self.requestID(job.command)) }
        #expect(order == ["r0", "r1", nil])
        #expect(bus.offer(Self.intent(3), id: "r3", answer: nil) == nil, "room again once taken")
    }

    /// With the embedded broker, a burst closes the broker's intake valve once
    /// `holdBackAbove` commands wait, and opens it again once the bus is down to `letGoAt`; notes
    /// do not count, and stopping the bus opens it.
    @Test func aBurstClosesTheBrokersIntakeValveUntilTheBusCatchesUp() async throws {
        let valve = IntakeValve(clientID: "housectl-test")
        let bus = CommandBus(valve: valve)
        for n in 0..<(CommandBus.holdBackAbove - 1) { #expect(bus.offer(Self.intent(n), answer: nil) == nil) }
        for _ in 0..<100 { bus.note(.nodeStatus(node: "pi-x", online: true)) }
        #expect(!valve.isClosed, "notes do not count")
        #expect(bus.offer(Self.intent(999), answer: nil) == nil)
        #expect(valve.isClosed)
        var taken = 0
        while valve.isClosed, let job = bus.nextIfWaiting() {
            if job.bounded { taken += 1 }
        }
        #expect(taken == CommandBus.holdBackAbove - CommandBus.letGoAt, "open once \(CommandBus.letGoAt) wait")
        for n in 0..<CommandBus.holdBackAbove { _ = bus.offer(Self.intent(n), answer: nil) }
        #expect(valve.isClosed)
        bus.finish()
        #expect(!valve.isClosed, "a stopped bus holds no one back")
    }

    @Test func afterFinishTheQueuedAreHandedOutThenNothingIsTaken() async throws {
        let bus = CommandBus()
        #expect(bus.note(.nodeStatus(node: "pi-x", online: false)))
        bus.finish()
        #expect(await bus.next() != nil, "what was queued before finish still comes out")
        #expect(await bus.next() == nil)
        #expect(!bus.note(.nodeStatus(node: "pi-x", online: true)))
        let late = await bus.submit(Self.intent(9), id: "r9")
        #expect(late.status == .error && late.error?.contains("shutting down") == true)
        let refused = Mutex<IntentReply?>(nil)
        #expect(bus.offer(Self.intent(10), id: "r10") { reply in refused.withLock { $0 = reply } }?.error?.contains("shutting down") == true)
        #expect(refused.withLock { $0?.error?.contains("shutting down") } == true, "answered at once, on the caller's thread")
    }

    @Test func aWaitingConsumerIsWokenByTheNextCommand() async throws {
        let bus = CommandBus()
        let consumer = Task { () -> String? in
            guard let job = await bus.next() else { return nil }
            job.answer?(IntentReply(id: "r7", outcomes: []))
            return Self.requestID(job.command)
        }
        let reply = await bus.submit(Self.intent(7), id: "r7")
        #expect(await consumer.value == "r7")
        #expect(reply.id == "r7")
    }

    /// The group commit's linger: a command that comes within the time is taken, none is nil,
    /// and a command handed over just as the time runs out is never lost: over many short
    /// lingers racing many offers, every offered command is taken exactly once, in order. One
    /// task times the lingers; a short one after a long one still ends in time.
    @Test(.timeLimit(.minutes(1))) func aLingerTakesWhatComesAndNeverLosesOne() async throws {
        let bus = CommandBus()
        #expect(await bus.next(within: .milliseconds(1)) == nil, "nothing came")
        let late = Task { await bus.submit(Self.intent(1), id: "r1") }
        let taken = await bus.next(within: .seconds(600))
        #expect(taken.flatMap { Self.requestID($0.command) } == "r1")
        taken?.answer?(IntentReply(id: "r1", outcomes: []))
        _ = await late.value
        // A short linger right after a long one (whose timer still sleeps) ends in its own time,
        // not the long one's: the test's time limit would run out first.
        #expect(await bus.next(within: .milliseconds(1)) == nil, "nothing came after the long linger")

        let count = 2000
        let producer = Task.detached {
            for n in 0..<count {
                _ = bus.offer(Self.intent(n), answer: nil)
                if n % 7 == 0 { await Task.yield() }
            }
        }
        var seen: [String] = []
        while seen.count < count {
            if let job = await bus.next(within: .microseconds(50)), let id = Self.requestID(job.command) { seen.append(id) }
        }
        await producer.value
        #expect(seen == (0..<count).map { "r\($0)" })
        #expect(bus.nextIfWaiting() == nil)
    }

    /// Intents sent together, many times over: each reply speaks of its own intent, and every
    /// intent has exactly its own donation on `house/events` (the gateway, an actor, used to
    /// read the donation of whichever intent had finished last).
    @Test func intentsArrivingTogetherEachKeepTheirOwnReplyAndDonation() async throws {
        try await withController { f in
            let mqtt = try await f.mqttClient()
            let events = try await mqtt.subscribe(to: "house/events")
            let rounds = 8
            let replies = try await withThrowingTaskGroup(of: IntentReply.self) { group in
                for i in 0..<rounds {
                    group.addTask { try await f.client().send(.text("toggle the hall light")) }
                    group.addTask { try await f.client().send(.intent(.setMode(SetHouseModeIntent(mode: i % 2 == 0 ? "night" : "evening")))) }
                }
                var all: [IntentReply] = []
                for try await reply in group { all.append(reply) }
                return all
            }
            #expect(replies.count == 2 * rounds)
            for reply in replies {
                #expect(reply.status == .done, "\(reply.dialog)")
                let intent = reply.results.first?.intent ?? ""
                if intent.hasPrefix("control") {
                    #expect(reply.dialog.contains("hall light"), "\(intent): \(reply.dialog)")
                } else {
                    #expect(reply.dialog.contains("mode") && !reply.dialog.contains("hall light is"), "\(intent): \(reply.dialog)")
                }
            }
            var kinds: [String: Int] = [:]
            for _ in 0..<(2 * rounds) {
                let event = try JSONDecoder().decode(DonationEvent.self, from: Data(try await events.next("a donation").payload))
                kinds[String(event.intent.prefix { $0 != " " }), default: 0] += 1
            }
            #expect(kinds == ["control": rounds, "set-mode": rounds], "\(kinds)")
            await mqtt.disconnect()
        }
    }
}
