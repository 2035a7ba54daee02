import Foundation
import HouseBroker
import HouseMQTT
import HouseTesting
import Logging
import Testing
@testable import HouseDaemon

/// `<base>/events` while nobody listens: the broker's "no matching subscribers" (PUBACK 0x10)
/// stops the events, a probe finds a new subscriber, and a subscriber gets every event from its
/// subscription on, in order. Against the embedded broker; the daemon's own tests of the events
/// topic (end to end, mosquitto) go through the outlet too.
@Suite("The events outlet holds back what nobody hears", .timeLimit(.minutes(1)))
struct EventOutletTests {
    static let topic = "house/events"

    func client(_ broker: HouseBroker, _ id: String, _ version: HouseMQTT.MQTTProtocolVersion = .v5) throws -> MQTTClient {
        var configuration = MQTTConfiguration(host: "127.0.0.1", port: broker.port, clientID: id)
        configuration.protocolVersion = version
        return try MQTTClient(configuration: configuration)
    }

    /// A connected client `id` and an outlet publishing through it.
    func outlet(_ broker: HouseBroker, _ id: String, _ version: HouseMQTT.MQTTProtocolVersion = .v5) async throws -> (MQTTClient, EventOutlet) {
        let publisher = try client(broker, id, version)
        try await publisher.connect()
        return (publisher, EventOutlet(topic: Self.topic, client: publisher, logger: Logger(label: "test")))
    }

    /// `outlet(_:_:)`, once its first event (`{"n":0}`, nobody listening) was answered 0x10.
    func holdingOutlet(_ broker: HouseBroker, _ id: String) async throws -> (MQTTClient, EventOutlet) {
        let (publisher, outlet) = try await outlet(broker, id)
        outlet.publish(.json(#"{"n":0}"#))
        try await waitFor(outlet, "the broker's 0x10") { outlet.isHoldingBack }
        return (publisher, outlet)
    }

    /// Waits (bounded) until `condition` holds, woken by the outlet's answers.
    func waitFor(_ outlet: EventOutlet, _ what: String, _ condition: @escaping @Sendable () -> Bool) async throws {
        try await withTimeout(.seconds(10), what) {
            await outlet.changes.watch { signal in
                while !condition() && !Task.isCancelled { await signal.wait() }
            }
        }
    }

    @Test func eventsNobodyHearsAreLetGoAndASubscriberGetsEveryOneFromItsSubscriptionOnInOrder() async throws {
        try await withTestBroker { broker in
            // Nobody listens: the first event goes out, its answer stops the rest.
            let (publisher, outlet) = try await holdingOutlet(broker, "outlet")
            outlet.publish(.json(#"{"n":1}"#))
            outlet.publish(.json(#"{"n":2}"#))
            #expect(outlet.counts.sent == 1, "held, not sent")
            // The probe (the oldest kept) is answered 0x10 again: the other one is let go.
            outlet.probe()
            try await waitFor(outlet, "the probe's answer") { outlet.counts.unheard == 1 }
            #expect(outlet.counts == EventOutlet.Counts(sent: 2, unheard: 1, probes: 1))
            #expect(outlet.isHoldingBack)

            // Somebody subscribes; what happens from then on reaches it, in order.
            let listener = try client(broker, "listener")
            try await listener.connect()
            let events = try await listener.subscribe(to: Self.topic, qos: .atLeastOnce)
            outlet.publish(.json(#"{"n":3}"#))
            outlet.publish(.json(#"{"n":4}"#))
            #expect(outlet.counts.sent == 2, "still held until the next probe")
            outlet.probe()
            try await waitFor(outlet, "the probe to find the listener") { !outlet.isHoldingBack }
            outlet.publish(.json(#"{"n":5}"#))
            var received: [String] = []
            for _ in 0..<3 { received.append(try await events.next("an event").string ?? "") }
            #expect(received == [#"{"n":3}"#, #"{"n":4}"#, #"{"n":5}"#])
            #expect(outlet.counts == EventOutlet.Counts(sent: 5, unheard: 1, probes: 2))

            // The listener leaves: the next event's answer stops them again.
            try await listener.unsubscribe(events)
            outlet.publish(.json(#"{"n":6}"#))
            try await waitFor(outlet, "the 0x10 after the listener left") { outlet.isHoldingBack }
            // A shutdown sends whatever is kept.
            let late = try client(broker, "late")
            try await late.connect()
            let lateEvents = try await late.subscribe(to: Self.topic, qos: .atLeastOnce)
            outlet.publish(.json(#"{"n":7}"#))
            outlet.flush()
            #expect(try await lateEvents.next("the kept event").string == #"{"n":7}"#)
            #expect(!outlet.isHoldingBack)
            await late.disconnect()
            await listener.disconnect()
            await publisher.disconnect()
        }
    }

    /// The controller: once its events are held back (nobody subscribed), a client that
    /// subscribes and at once sends a command gets that command's event.
    @Test func aSubscriberThatComesWhileTheControllerHoldsEventsBackGetsTheNextCommandsEvent() async throws {
        try await withController { f in try await subscribeWhileHeldBack(f) }
    }

    /// The same against Debian's mosquitto, which answers 0x10 as the embedded broker does.
    @Test(.enabled(if: MosquittoBroker.shouldRun, "mosquitto not installed (CI=true makes this a failure)"))
    func withMosquittoASubscriberThatComesWhileEventsAreHeldBackGetsTheNextCommandsEvent() async throws {
        try await withMosquitto { broker in
            try await withController(brokerPort: broker.port) { f in try await subscribeWhileHeldBack(f) }
        }
    }

    func subscribeWhileHeldBack(_ f: ControllerFixture) async throws {
        let outlet = f.controller.gateway.events
        let mqtt = try await f.mqttClient()
        try await mqtt.publish(to: "house/kitchen/kitchen-light/set", payload: "ON", qos: .atLeastOnce)
        try await waitFor(outlet, "the controller to hold its events back") { outlet.isHoldingBack }
        let events = try await mqtt.subscribe(to: Self.topic, qos: .atLeastOnce)
        try await mqtt.publish(to: "house/kitchen/kitchen-light/set", payload: "OFF", qos: .atLeastOnce)
        let event = try await events.first("the OFF command's event") { $0.string?.contains(#""action":"off""#) == true }
        #expect(event.string?.contains(#""source":"mqtt""#) == true)
        #expect(outlet.counts.probes >= 1)
        await mqtt.disconnect()
    }

    /// Events sent live before nobody listened, then events kept while a probe waits for its
    /// answer: the probe's 0x10 lets go only what was kept before it left, and the events after
    /// it reach the next subscriber.
    @Test func aProbesAnswerLetsGoOnlyWhatWasKeptBeforeIt() async throws {
        try await withTestBroker { broker in
            let (publisher, outlet) = try await outlet(broker, "outlet-window")
            // Some events go out live (nobody listens) until the first 0x10 comes back; those
            // published after it are kept (how many of the five depends on when it came).
            for n in 0..<5 { outlet.publish(.json("{\"n\":\(n)}")) }
            try await waitFor(outlet, "the broker's 0x10") { outlet.isHoldingBack }
            let live = outlet.counts.sent
            outlet.publish(.json(#"{"n":"before"}"#))
            await broker.pauseReading()
            outlet.probe()
            outlet.publish(.json(#"{"n":"after-1"}"#))
            outlet.publish(.json(#"{"n":"after-2"}"#))
            await broker.resumeReading()
            // One connection's acknowledgements come in order: the probe's came before this one's.
            _ = try await publisher.publish(MQTTMessage(topic: "house/other", string: "x", qos: .atLeastOnce))
            // The probe is the oldest kept event; its 0x10 lets go the others kept before it (those
            // of the five not sent live, and "before"), and the two after it stay kept.
            #expect(outlet.counts == EventOutlet.Counts(sent: live + 1, unheard: 5 - live, probes: 1), "the two after the probe are kept")
            let listener = try client(broker, "listener-window")
            try await listener.connect()
            let events = try await listener.subscribe(to: Self.topic, qos: .atLeastOnce)
            outlet.probe()
            var received: [String] = []
            for _ in 0..<2 { received.append(try await events.next("a kept event").string ?? "") }
            #expect(received == [#"{"n":"after-1"}"#, #"{"n":"after-2"}"#])
            await listener.disconnect()
            await publisher.disconnect()
        }
    }

    /// With `probeAt` events kept the probe goes from `publish` itself, on the publisher's thread
    /// (no probe service runs here), and its 0x10 lets the others go.
    @Test func withProbeAtKeptTheProbeGoesFromPublish() async throws {
        try await withTestBroker { broker in
            let (publisher, outlet) = try await holdingOutlet(broker, "outlet-probe-at")
            for n in 1..<EventOutlet.probeAt { outlet.publish(.json("{\"n\":\(n)}")) }
            #expect(outlet.counts.probes == 0, "\(EventOutlet.probeAt - 1) kept, no probe yet")
            outlet.publish(.json("{\"n\":\(EventOutlet.probeAt)}"))
            #expect(outlet.counts.probes == 1, "the oldest kept went as a probe at once")
            try await waitFor(outlet, "the probe's answer") { outlet.counts.unheard == EventOutlet.probeAt - 1 }
            #expect(outlet.counts == EventOutlet.Counts(sent: 2, unheard: EventOutlet.probeAt - 1, probes: 1))
            #expect(outlet.isHoldingBack)
            // Kept again from the next one on, and the let-go ones freed by it.
            outlet.publish(.json(#"{"n":"next"}"#))
            #expect(outlet.counts.sent == 2)
            await publisher.disconnect()
        }
    }

    /// A probe the broker does not answer (it stopped reading) leaves at most `mostKept` events
    /// kept: then they go out, and the next ones as they happen.
    @Test func atMostMostKeptEventsWaitForAProbesAnswer() async throws {
        try await withTestBroker { broker in
            let (publisher, outlet) = try await holdingOutlet(broker, "outlet-stalled")
            await broker.pauseReading()
            outlet.publish(.json(#"{"n":1}"#))
            outlet.probe()
            for n in 2...EventOutlet.mostKept { outlet.publish(.json("{\"n\":\(n)}")) }
            #expect(outlet.isHoldingBack, "\(EventOutlet.mostKept - 1) kept")
            outlet.publish(.json("{\"n\":\(EventOutlet.mostKept + 1)}"))
            #expect(!outlet.isHoldingBack)
            #expect(outlet.counts.sent == EventOutlet.mostKept + 2, "the first, the probe and every kept one")
            await broker.resumeReading()
            await publisher.disconnect()
        }
    }

    /// An MQTT 3.1.1 connection has no reason codes: every event goes out.
    @Test func onMQTT311EveryEventGoesOut() async throws {
        try await withTestBroker { broker in
            let (publisher, outlet) = try await outlet(broker, "outlet-311", .v311)
            for n in 0..<3 { outlet.publish(.json("{\"n\":\(n)}")) }
            // The third event's answer came after the first two's: nothing stopped them.
            let answered = try await publisher.publish(MQTTMessage(topic: "house/other", string: "x", qos: .atLeastOnce))
            #expect(answered == .delivered)
            outlet.publish(.json(#"{"n":3}"#))
            #expect(outlet.counts.sent == 4)
            #expect(!outlet.isHoldingBack)
            await publisher.disconnect()
        }
    }

    /// A probe that cannot be answered (the client is offline, the message queued) decides
    /// nothing: the events go out again as they happen.
    @Test func aProbeThatCannotBeAnsweredSendsEverythingKept() async throws {
        try await withTestBroker { broker in
            let (publisher, outlet) = try await holdingOutlet(broker, "outlet-offline")
            outlet.publish(.json(#"{"n":1}"#))
            outlet.publish(.json(#"{"n":2}"#))
            await broker.shutdown()
            try await withTimeout(.seconds(10), "the client to notice the broker is gone") {
                for await state in publisher.connectionStates() where !state.isConnected { return }
            }
            outlet.probe()
            #expect(!outlet.isHoldingBack)
            #expect(outlet.counts.sent == 3, "the probe and the other kept event, queued offline")
            await publisher.disconnect()
        }
    }
}
