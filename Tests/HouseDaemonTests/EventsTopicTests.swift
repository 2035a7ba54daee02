import Foundation
import HouseMQTT
import HouseTesting
import Testing
@testable import HouseDaemon

/// `<base>/events`: a client that subscribes and then sends a command gets that command's
/// event (the donation), against the embedded broker and against Debian's mosquitto.
@Suite("The events topic carries every command's record", .timeLimit(.minutes(1)))
struct EventsTopicTests {
    static let topic = "house/events"

    @Test func aSubscriberGetsTheEventOfTheCommandItSends() async throws {
        try await withController { f in try await subscribeThenCommand(f) }
    }

    @Test(.enabled(if: MosquittoBroker.shouldRun, "mosquitto not installed (CI=true makes this a failure)"))
    func withMosquittoASubscriberGetsTheEventOfTheCommandItSends() async throws {
        try await withMosquitto { broker in
            try await withController(brokerPort: broker.port) { f in try await subscribeThenCommand(f) }
        }
    }

    func subscribeThenCommand(_ f: ControllerFixture) async throws {
        let mqtt = try await f.mqttClient()
        // A command before anybody listens: its event goes nowhere.
        try await mqtt.publish(to: "house/kitchen/kitchen-light/set", payload: "ON", qos: .atLeastOnce)
        let events = try await mqtt.subscribe(to: Self.topic, qos: .atLeastOnce)
        try await mqtt.publish(to: "house/kitchen/kitchen-light/set", payload: "OFF", qos: .atLeastOnce)
        let event = try await events.first("the OFF command's event") { $0.string?.contains(#""action":"off""#) == true }
        #expect(event.string?.contains(#""source":"mqtt""#) == true)
        await mqtt.disconnect()
    }
}
