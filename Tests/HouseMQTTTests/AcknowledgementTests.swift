import Foundation
import HouseTesting
import Testing
@testable import HouseMQTT

/// How acknowledgements reach their waiters when they race with the waiter's registration and
/// with connection losses. A subscribe or unsubscribe hands its packet to libmosquitto outside
/// the client's lock and registers its waiter afterwards, so the acknowledgement (on
/// libmosquitto's thread) may come first, and the connection may even drop in between. A publish
/// once did the same and waited forever (the early PUBACK was thrown away with the loss), which
/// stalled a device's command loop in the daemon; publishes are now handed over under the lock,
/// but `register` keeps these rules for every kind of waiter, and they are tested on publishes.
@Suite("Acknowledgements racing registration and losses", .timeLimit(.minutes(1)))
struct AcknowledgementTests {
    static let lost = MQTTError.connectionLost(endpoint: "127.0.0.1:1", reason: "test")

    func connectedState() -> ClientState {
        var s = ClientState(queueCapacity: 10, random: SystemRandomNumberGenerator())
        s.phase = .connected
        return s
    }

    /// The connection drops: `s` settles its waiters as the client's loss handling does.
    func lose(_ s: inout ClientState) {
        var fx = ClientEffects()
        s.connectionLost(Self.lost, &fx)
        fx.run()
    }

    struct StillWaiting: Error {}

    /// Registers a publish waiter for `mid` and reports how it ended: "delivered", the error, or
    /// "waiting" when it stays pending (it is then taken back out).
    func registerPublish(_ s: inout ClientState, mid: Int32, qos: MQTTQoS, ticket: AckTicket) async -> String {
        do {
            _ = try await withCheckedThrowingContinuation { (c: CheckedContinuation<MQTTDelivery, any Error>) in
                var fx = ClientEffects()
                s.register(mid, .publish(qos, 0, c, topic: "a/b"), sentWith: ticket, &fx)
                fx.run()
                if s.pending.removeValue(forKey: mid) != nil { c.resume(throwing: StillWaiting()) }
            }
            return "delivered"
        } catch is StillWaiting {
            return "waiting"
        } catch {
            return "\(error)"
        }
    }

    @Test func aPubackThatCameBeforeTheRegistrationAndALossStillCompletesThePublish() async {
        var s = connectedState()
        let ticket = s.ticket
        s.noteEarly(7, .published(.success))       // PUBACK on libmosquitto's thread...
        lose(&s)                        // ...then the connection drops...
        // ...and only then does the publishing task register its waiter.
        #expect(await registerPublish(&s, mid: 7, qos: .atLeastOnce, ticket: ticket) == "delivered")
        #expect(s.early.isEmpty)
    }

    @Test func aStaleEarlyAcknowledgementWithTheSameIdIsNotTakenForANewPublish() async {
        var s = connectedState()
        s.noteEarly(9, .published(.success))  // a duplicate PUBACK for an old use of id 9
        let ticket = s.ticket       // a new publish that got id 9 again
        #expect(await registerPublish(&s, mid: 9, qos: .atLeastOnce, ticket: ticket) == "waiting")
    }

    @Test func aQoS0PublishRegisteredAfterALossFailsInsteadOfWaiting() async {
        var s = connectedState()
        let ticket = s.ticket
        lose(&s)
        #expect(await registerPublish(&s, mid: 3, qos: .atMostOnce, ticket: ticket) == "\(Self.lost)")
    }

    @Test func aQoS1PublishRegisteredAfterALossWaitsForTheResend() async {
        var s = connectedState()
        let ticket = s.ticket
        lose(&s)
        #expect(await registerPublish(&s, mid: 4, qos: .atLeastOnce, ticket: ticket) == "waiting")
    }

    @Test func aSubscribeRegisteredAfterALossReturns() async {
        var s = connectedState()
        let ticket = s.ticket
        lose(&s)
        let codes = await withCheckedContinuation { (c: CheckedContinuation<[Int32]?, Never>) in
            var fx = ClientEffects()
            s.register(5, .subscribe(c), sentWith: ticket, &fx)
            fx.run()
        }
        #expect(codes == nil)
        #expect(s.pending[5] == nil)
    }

    @Test func earlyAcknowledgementsNobodyTakesAreBounded() {
        var s = connectedState()
        for mid in 1...2_000 { s.noteEarly(Int32(mid), .published(.success)) }
        #expect(s.early.count <= 257)
        #expect(s.early[2_000] != nil)
    }

    /// A publish waiting for a PUBACK that does not come (the broker stopped reading) ends with
    /// `CancellationError` when its task is cancelled, so a caller's timeout works.
    @Test func cancellingAPublishWaitingForItsPubackEndsIt() async throws {
        try await withTestBroker { broker in
            let client = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: broker.port, clientID: "cancel-test"))
            try await client.connect()
            await broker.pauseReading()
            let publish = Task { try await client.publish(to: "a/b", payload: "x", qos: .atLeastOnce) }
            let outcome = try await withTimeout(.seconds(10), "the cancelled publish to end") { () -> String in
                publish.cancel()
                do {
                    _ = try await publish.value
                    return "delivered"
                } catch is CancellationError {
                    return "cancelled"
                }
            }
            #expect(outcome == "cancelled")
            await broker.resumeReading()
            await client.disconnect()
        }
    }
}

/// The in-flight count of the pending acknowledgements (the in-flight window's measure) follows
/// every way a waiter is added, replaced and removed.
@Suite struct PendingAcknowledgementsTests {
    @Test func theInFlightCountFollowsAddsReplacementsAndRemovals() {
        var pending = PendingAcknowledgements()
        pending[1] = .ignoreRetried(topic: "a/b")
        pending[2] = .ignore
        #expect(pending.inFlight == 1, "a QoS 0 publish is not in flight")
        #expect(pending.updateValue(.ignoreRetried(topic: "a/b"), forKey: 2).map { if case .ignore = $0 { true } else { false } } == true)
        #expect(pending.inFlight == 2)
        pending[1] = .ignore
        #expect(pending.inFlight == 1, "replaced by a waiter that is not a publish in flight")
        #expect(pending.removeValue(forKey: 2) != nil)
        #expect(pending.removeValue(forKey: 2) == nil, "removed once")
        #expect(pending.inFlight == 0)
        pending[1] = nil
        #expect(pending.isEmpty && pending.inFlight == 0)
    }
}
