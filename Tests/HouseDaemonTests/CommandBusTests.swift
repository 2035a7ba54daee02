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

    /// A burst waits on the bus as small slots of its ring: a command's intent is held out of
    /// line, and comes back as it went in.
    @Test func aWaitingCommandIsOneSmallSlotOfTheRing() {
        #expect(MemoryLayout<HouseCommand>.size <= 24, "\(MemoryLayout<HouseCommand>.size) bytes")
        #expect(MemoryLayout<CommandBus.Job>.stride <= 80, "\(MemoryLayout<CommandBus.Job>.stride) bytes")
        let command = Self.intent(7)
        #expect(Self.requestID(command) == "r7")
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

    /// A command handed over just as the consumer starts to wait is never lost: over many
    /// offers racing the consumer's waits, every offered command is taken exactly once, in order.
    @Test(.timeLimit(.minutes(1))) func offersRacingTheConsumersWaitsAreEachTakenOnceInOrder() async throws {
        let bus = CommandBus()
        let count = 2000
        let producer = Task.detached {
            for n in 0..<count {
                _ = bus.offer(Self.intent(n), answer: nil)
                if n % 7 == 0 { await Task.yield() }
            }
        }
        var seen: [String] = []
        while seen.count < count {
            if let job = await bus.next(), let id = Self.requestID(job.command) { seen.append(id) }
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
