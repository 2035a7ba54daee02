import Foundation
import HouseBroker
import HouseBrokerTesting
import HouseTesting
import Testing
@testable import HouseMQTT

/// `waitForRoom`: a producer that can wait (the controller's command bus) waits while more than
/// `backlogHigh` messages wait behind the in-flight window, until they are down to `backlogLow`;
/// a broker that stops acknowledging holds it up for at most the limit, and then not again until
/// the backlog shrinks. The client runs on a `ManualClock`: a wait that has begun is a sleeper
/// on it (the limit), and the limit runs out only when the test says.
@Suite("The client's backlog", .timeLimit(.minutes(1)))
struct BacklogTests {
    /// Runs `body` with a client connected (on a `ManualClock`) to a test broker, then disconnects.
    func withClient(_ id: String, _ body: (HouseBroker, MQTTClient, ManualClock) async throws -> Void) async throws {
        try await withTestBroker { broker in
            let clock = ManualClock(start: Date(timeIntervalSince1970: 1_795_521_600))  // 2026-11-24 12:00 UTC: a fixed start
            var configuration = MQTTConfiguration(host: "127.0.0.1", port: broker.port, clientID: id)
            configuration.reconnect = MQTTReconnectPolicy(initialDelay: .seconds(30), maximumDelay: .seconds(30))
            let client = try MQTTClient(configuration: configuration, clock: clock)
            try await client.connect()
            try await body(broker, client, clock)
            await broker.resumeReading()
        }
    }

    /// With the broker not reading, makes a backlog and starts a wait for room (`limit`),
    /// returned once it has begun (a sleeper on `clock`) and been counted as wait `count`.
    func startWaiting(_ broker: HouseBroker, _ client: MQTTClient, _ clock: ManualClock,
                      limit: Duration = .seconds(30), count: Int = 1) async throws -> Task<Bool, Never> {
        await broker.pauseReading()
        try fillBacklog(client)
        #expect(client.statistics.heldDepth > MQTTClient.backlogHigh)
        let waiter = Task { await client.waitForRoom(atMost: limit) }
        await clock.waitForSleepers(1)
        #expect(client.statistics.backlogWaits == count)
        return waiter
    }

    /// Sends messages until more than `backlogHigh` wait behind the window.
    func fillBacklog(_ client: MQTTClient) throws {
        for i in 0...(MQTTClient.backlogHigh + 100) {
            try client.send(MQTTMessage(topic: "backlog/\(i % 7)", string: "\(i)", qos: .atLeastOnce))
        }
    }

    @Test func returnsAtOnceWithoutABacklog() async throws {
        try await withClient("backlog-none") { broker, client, clock in
            try client.send(MQTTMessage(topic: "backlog/a", string: "x", qos: .atLeastOnce))
            #expect(await client.waitForRoom(atMost: .seconds(30)))
            #expect(client.statistics.backlogWaits == 0)
        }
    }

    @Test func waitsUntilTheBrokerHasAcknowledgedTheBacklogDownToTheLowMark() async throws {
        try await withClient("backlog-wait") { broker, client, clock in
            // The wait has begun (it is counted) before the broker reads again.
            let waiter = try await startWaiting(broker, client, clock)
            await broker.resumeReading()
            let got = try await withTimeout(.seconds(20), "the room") { await waiter.value }
            #expect(got)
            #expect(client.statistics.heldDepth <= MQTTClient.backlogLow)
        }
    }

    @Test func aBrokerThatStopsAcknowledgingHoldsTheProducerOnceThenNotUntilTheBacklogShrinks() async throws {
        try await withClient("backlog-stuck") { broker, client, clock in
            let first = try await startWaiting(broker, client, clock, limit: .seconds(1))
            clock.advance(by: .seconds(1))
            #expect(await first.value == false)
            // Stalled: no more waiting while the broker still says nothing.
            #expect(await client.waitForRoom(atMost: .seconds(30)))
            #expect(client.statistics.backlogWaits == 1)
            await broker.resumeReading()
            // Everything sent is acknowledged: an awaited publish comes back after the backlog.
            try await withTimeout(.seconds(20), "the backlog to go out") {
                try await client.publish(MQTTMessage(topic: "backlog/last", string: "x", qos: .atLeastOnce))
            }
            #expect(client.statistics.heldDepth == 0)
            // The stall is over: a new backlog is waited for again.
            let waiter = try await startWaiting(broker, client, clock, count: 2)
            await broker.resumeReading()
            #expect(try await withTimeout(.seconds(20), "the room") { await waiter.value })
        }
    }

    @Test func aLostConnectionEndsTheWait() async throws {
        try await withClient("backlog-lost") { broker, client, clock in
            let waiter = try await startWaiting(broker, client, clock)
            await broker.cutOff(clientID: "backlog-lost")
            #expect(try await withTimeout(.seconds(20), "the wait to end") { await waiter.value })
        }
    }
}
