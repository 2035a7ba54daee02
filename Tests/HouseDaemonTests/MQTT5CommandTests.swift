import MQTTTopics
import Foundation
import HouseCore
import HouseMQTT
import HouseTesting
import Signals
import Testing
@testable import HouseDaemon

/// The controller on an MQTT 5 broker: a retained command published while it
/// runs is refused and cleared, an intent request is answered on its response topic with its
/// correlation data and the status as a user property, and a command whose message expiry ran out
/// before its turn is not carried out.
@Suite(.serialized) struct MQTT5CommandTests {
    /// The brokers the tests run on: the embedded one (ours) and Debian's mosquitto.
    static let brokers = MosquittoBroker.shouldRun ? ["housectl", "mosquitto"] : ["housectl"]

    /// A controller on `broker`: ours embedded, or a mosquitto of its own.
    func withControllerOn(_ broker: String, _ body: @Sendable @escaping (ControllerFixture) async throws -> Void) async throws {
        if broker == "mosquitto" {
            try await withMosquitto(configLines: ["set_tcp_nodelay true"]) { mosquitto in
                try await withController(brokerPort: mosquitto.port, body)
            }
        } else {
            try await withController(body)
        }
    }

    @Test(arguments: brokers)
    func aLiveRetainedCommandIsRefusedAndCleared(broker: String) async throws {
        try await withControllerOn(broker) { f in
            #expect(f.controller.client.protocolVersion == .v5)
            let mqtt = try await f.mqttClient()
            let state = try await mqtt.subscribe(to: "house/kitchen/kitchen-light/state")
            _ = try await state.first("the retained OFF") { $0.string == "OFF" }
            let commands = try await mqtt.subscribe(to: "house/kitchen/kitchen-light/set")
            // Published retained while the controller is subscribed: MQTT 3.1.1 would hand it
            // over as a plain message, and it would be obeyed.
            try await mqtt.publish(to: "house/kitchen/kitchen-light/set", payload: "ON", qos: .atLeastOnce, retain: true)
            // Cleared: the controller publishes an empty retained message on the topic.
            _ = try await commands.first("the retained command cleared") { $0.payload.isEmpty }
            // The light did not move; a plain command still works.
            #expect(f.edges(of: "kitchen-light").isEmpty)
            try await mqtt.publish(to: "house/kitchen/kitchen-light/set", payload: "ON", qos: .atLeastOnce)
            _ = try await state.first("ON") { $0.string == "ON" }
            #expect(f.edges(of: "kitchen-light").map(\.logical) == [true])
            await mqtt.disconnect()
        }
    }

    @Test(arguments: brokers)
    func aRequestIsAnsweredOnItsResponseTopicWithItsCorrelationData(broker: String) async throws {
        try await withControllerOn(broker) { f in
            let mqtt = try await f.mqttClient()
            let responses = try await mqtt.subscribe(to: "flows/kitchen/answers")
            let correlation: [UInt8] = Array("node-red-msg-42".utf8)
            var request = MQTTMessage(topic: "house/intent/request", string: #"{"id":"r-1","text":"turn on the kitchen light"}"#,
                                      qos: .atLeastOnce)
            request.properties = MQTTPublishProperties(responseTopic: "flows/kitchen/answers", correlationData: correlation)
            _ = try await mqtt.publish(request)
            let answer = try await responses.next("the answer on the response topic")
            #expect(answer.properties.correlationData == correlation)
            #expect(answer.properties.userProperties.contains(MQTTUserProperty("status", "done")))
            let reply = try JSONDecoder().decode(IntentReply.self, from: Data(answer.payload))
            #expect(reply.id == "r-1" && reply.status == .done)
            // A refusal carries its reason too.
            var refused = MQTTMessage(topic: "house/intent/request", string: #"{"id":"r-2","text":"open the garage door"}"#,
                                      qos: .atLeastOnce)
            refused.properties = MQTTPublishProperties(responseTopic: "flows/kitchen/answers", correlationData: [1, 2])
            _ = try await mqtt.publish(refused)
            let second = try await responses.next("the second answer")
            #expect(second.properties.correlationData == [1, 2])
            #expect(second.properties.userProperties.contains { $0.name == "reason" && !$0.value.isEmpty })
            // A malformed request that asked for an answer gets one, with the reason.
            var malformed = MQTTMessage(topic: "house/intent/request", string: "{not json", qos: .atLeastOnce)
            malformed.properties = MQTTPublishProperties(responseTopic: "flows/kitchen/answers", correlationData: [3])
            _ = try await mqtt.publish(malformed)
            let third = try await responses.next("the answer to the malformed request")
            #expect(third.properties.correlationData == [3])
            #expect(try JSONDecoder().decode(IntentReply.self, from: Data(third.payload)).status == .error)
            await mqtt.disconnect()
        }
    }

    /// `mqtt.protocol: 3.1.1` keeps the controller (and its command-line client) on MQTT 3.1.1
    /// with a broker that speaks 5.
    @Test func theConfiguredVersionIsSpoken() async throws {
        var house = try HouseFixtures.exampleConfiguration()
        house.mqtt.protocolVersion = .v311
        let config = house
        let cli = try DaemonClient(configuration: config)
        #expect(cli.protocolVersion == .v311)
        try await withController(configuration: config) { f in
            #expect(f.controller.client.protocolVersion == .v311)
            let reply = try await f.client().send(.text("turn on the kitchen light"))
            #expect(reply.status == .done)
        }
        try await withController { f in #expect(f.controller.client.protocolVersion == .v5, "MQTT 5 by default") }
    }

    /// A command whose message expiry has run out when its turn comes is answered `expired` and
    /// not carried out; one within its expiry is carried out.
    @Test func aCommandPastItsExpiryIsNotCarriedOut() async throws {
        try await withController { f in
            let bus = f.controller.bus
            let light = HouseIntent.control(HouseControlIntent(room: "kitchen", action: .on, device: "kitchen light"))
            let command = HouseCommand.intent(light, source: .mqtt, answers: .none, requestID: "e-1")
            let now = f.clock.monotonic.now
            let late = OneShot<IntentReply>()
            bus.offer(command, id: "e-1", expires: now.advanced(by: .seconds(-1))) { late.fulfill($0) }
            let expired = try await withTimeout(.seconds(10), "the expired command's answer") { await late.wait() }
            #expect(expired?.status == .expired)
            #expect(f.edges(of: "kitchen-light").isEmpty)
            let fresh = OneShot<IntentReply>()
            bus.offer(HouseCommand.intent(light, source: .mqtt, answers: .none, requestID: "e-2"), id: "e-2",
                      expires: now.advanced(by: .seconds(60))) { fresh.fulfill($0) }
            let done = try await withTimeout(.seconds(10), "the fresh command's answer") { await fresh.wait() }
            #expect(done?.status == .done)
            #expect(f.edges(of: "kitchen-light").map(\.logical) == [true])
        }
    }
}
