import Foundation
import HouseMQTT
import HouseTesting
import Testing
@testable import HouseDaemon

/// The controller end to end, in-process: the embedded broker on a free port, simulated relays,
/// a manual clock. Every wait is on a message or a reply, bounded.
@Suite(.serialized) struct EndToEndTests {
    @Test func phraseFromTheCommandLineSwitchesTheRelayAndTheRetainedStateAppears() async throws {
        try await withController { f in
            #expect(f.physicalLevel(of: "kitchen-light") == true)  // active-low board: off is high
            let reply = try await f.client().send(.text("turn on the kitchen light"))
            #expect(reply.status == .done)
            #expect(reply.dialog.contains("kitchen"))
            #expect(f.physicalLevel(of: "kitchen-light") == false)
            let mqtt = try await f.mqttClient()
            let state = try await mqtt.subscribe(to: "house/kitchen/kitchen-light/state")
            let retained = try await state.first("the retained kitchen light state") { $0.string == "ON" }
            #expect(retained.retain)
            await mqtt.disconnect()
        }
    }

    @Test func aRequestsContextRoomAnswersWhichRoom() async throws {
        try await withController { f in
            // Without a room, the lights of several rooms: a question, nothing switched.
            let asked = try await f.client().send(.text("turn off the lights"))
            #expect(asked.status == .needsChoice)
            #expect(f.edges(of: "hall-light").isEmpty)
            // Said in the hall: the hall's light, and only it.
            let done = try await f.client().send(.text("turn on the light in here"), answers: IntentAnswers(contextRoom: "hallway"))
            #expect(done.status == .done, "\(done.dialog)")
            #expect(f.edges(of: "hall-light").count == 1)
            #expect(f.edges(of: "kitchen-light").isEmpty)
        }
    }

    /// A question in one part of a phrase does not lose the other parts, and answering it with
    /// the pending part alone does not do the others twice.
    @Test func aQuestionInOnePartKeepsTheOthers() async throws {
        try await withController { f in
            let reply = try await f.client().send(.text("toggle the hall light and turn on the lamp in the bedroom and turn on the kitchen light"))
            #expect(reply.status == .needsChoice, "\(reply.dialog)")
            #expect(reply.results.map(\.status) == [.done, .needsChoice, .done])
            #expect(reply.pendingText == "turn on the lamp in the bedroom")
            #expect(f.edges(of: "hall-light").count == 1)
            #expect(f.edges(of: "kitchen-light").count == 1)
            let answered = try await f.client().send(.text(try #require(reply.pendingText)),
                                                     answers: IntentAnswers(choices: ["device": "bedroom-ceiling-light"]))
            #expect(answered.status == .done, "\(answered.dialog)")
            #expect(answered.pendingText == nil)
            #expect(f.edges(of: "hall-light").count == 1, "the toggle is not done twice")
        }
    }

    @Test func aConfirmDeviceWaitsForTheYes() async throws {
        try await withController { f in
            let heaterOn = HouseIntent.control(HouseControlIntent(room: "bathroom", action: .on, device: "heater"))
            let asked = try await f.client().send(.intent(heaterOn))
            #expect(asked.status == .needsConfirmation)
            #expect(asked.question?.isEmpty == false)
            #expect(f.edges(of: "bathroom-heater").isEmpty)
            let yes = try await f.client().send(.intent(heaterOn), answers: IntentAnswers(confirmed: true))
            #expect(yes.status == .done)
            #expect(f.edges(of: "bathroom-heater").count == 1)
        }
    }

    @Test func setTopicsObeyPlainCommandsAndRefuseMalformedAndRepeatedOnes() async throws {
        try await withController { f in
            let mqtt = try await f.mqttClient()
            let replies = try await mqtt.subscribe(to: "test/replies")
            let fan = try await mqtt.subscribe(to: "house/office/office-fan/state")
            // A malformed command with a reply topic gets an error reply.
            try await mqtt.publish(to: "house/office/office-fan/set", payload: #"{"id":"m1","state":"BRIGHT","reply_to":"test/replies"}"#, qos: .atLeastOnce)
            let error = try await replies.nextReply("the error reply")
            #expect(error.status == .error)
            #expect(error.error?.contains("ON, OFF, TOGGLE, OPEN, CLOSE or STOP") == true)
            // A plain command works (the fan waits out its 5 s minimum interval after power-on).
            try await mqtt.publish(to: "house/office/office-fan/set", payload: #"{"id":"c1","state":"TOGGLE","reply_to":"test/replies"}"#, qos: .atLeastOnce)
            #expect(try await replies.nextReply("the toggle reply").status == .done)
            f.clock.advance(by: .seconds(6))
            _ = try await fan.first("the fan on") { $0.string == "ON" }
            // The same id again (a client retrying) is answered with the first answer and not
            // done again (no edge); a new id is obeyed.
            try await mqtt.publish(to: "house/office/office-fan/set", payload: #"{"id":"c1","state":"TOGGLE","reply_to":"test/replies"}"#, qos: .atLeastOnce)
            let again = try await replies.nextReply("the repeated toggle's first answer")
            #expect(again.id == "c1" && again.status == .done)
            try await mqtt.publish(to: "house/office/office-fan/set", payload: #"{"id":"c2","state":"OFF","reply_to":"test/replies"}"#, qos: .atLeastOnce)
            let off = try await replies.nextReply("the OFF reply")
            #expect(off.id == "c2")
            f.clock.advance(by: .seconds(6))
            _ = try await fan.first("the fan off") { $0.string == "OFF" }
            #expect(f.edges(of: "office-fan").map(\.logical) == [true, false])
            await mqtt.disconnect()
        }
    }

    /// A repeated id of a read-only request (a query) is answered afresh, from the state at that
    /// moment: asking twice changes nothing, so no first answer is kept for it.
    @Test func aRepeatedQueryIsAnsweredFromTheStateNow() async throws {
        try await withController { f in
            let mqtt = try await f.mqttClient()
            let replies = try await mqtt.subscribe(to: "test/queries")
            let kitchen = try await mqtt.subscribe(to: "house/kitchen/kitchen-light/state")
            let query = #"{"id":"q1","intent":"query","query":"device-states","room":"kitchen","reply_to":"test/queries"}"#
            func light(_ reply: IntentReply) -> String? {
                reply.results.first?.response?.devices.first { $0.device.rawValue == "kitchen-light" }?.state?.rawValue
            }
            try await mqtt.publish(to: "house/intent/request", payload: query, qos: .atLeastOnce)
            let first = try await replies.nextReply("the first answer")
            #expect(first.id == "q1" && first.status == .done)
            #expect(light(first) == "OFF", "\(first)")
            try await mqtt.publish(to: "house/kitchen/kitchen-light/set", payload: "ON", qos: .atLeastOnce)
            _ = try await kitchen.first("the light on") { $0.string == "ON" }
            try await mqtt.publish(to: "house/intent/request", payload: query, qos: .atLeastOnce)
            let again = try await replies.nextReply("the repeated query's answer")
            #expect(again.id == "q1" && again.status == .done)
            #expect(light(again) == "ON", "\(again)")
            await mqtt.disconnect()
        }
    }

    /// Inputs past `InputLimits` are refused with a logged reason (and an error reply where the
    /// sender's id and reply topic can still be read), none of them whole in the log, and the
    /// daemon keeps serving: a set command still switches the relay, a request is still answered.
    @Test func inputsPastTheLimitsAreRefusedAndTheDaemonKeepsServing() async throws {
        let capture = LogCapture()
        try await withController(logger: capture.logger()) { f in
            let mqtt = try await f.mqttClient()
            let replies = try await mqtt.subscribe(to: "test/limits")
            let kitchen = try await mqtt.subscribe(to: "house/kitchen/kitchen-light/state")
            func logged(_ needle: String) async throws -> String {
                try await withTimeout(.seconds(20), "a log line with \(needle)") { try await capture.line(containing: needle) }
            }
            let nesting = String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000)

            // An intent request nested 20,000 deep: refused unparsed, so its id cannot be read (no reply).
            try await mqtt.publish(to: "house/intent/request", payload: #"{"id":"deep-1","reply_to":"test/limits","text":"turn on the kitchen light","x":"# + nesting + "}", qos: .atLeastOnce)
            _ = try await logged("house/intent/request: JSON nested deeper than 32 levels")

            // A set command larger than 64 KiB: refused, the relay untouched.
            let pad = String(repeating: "x", count: 70_000)
            try await mqtt.publish(to: "house/kitchen/kitchen-light/set", payload: #"{"state":"ON","id":"big-1","reply_to":"test/limits","pad":"\#(pad)"}"#, qos: .atLeastOnce)
            _ = try await logged("kitchen-light/set: payload of 70061 bytes is larger than the limit of 65536 bytes")
            #expect(f.edges(of: "kitchen-light").isEmpty)

            // A reply topic of 201 levels: refused; the id is valid, so the error goes to the default reply topic.
            let defaultReplies = try await mqtt.subscribe(to: "house/intent/response/deep-reply")
            let deepTopic = Array(repeating: "r", count: 201).joined(separator: "/")
            try await mqtt.publish(to: "house/intent/request", payload: #"{"id":"deep-reply","text":"turn on the kitchen light","reply_to":"\#(deepTopic)"}"#, qos: .atLeastOnce)
            let deepReply = try await defaultReplies.nextReply("the error reply on the default topic")
            #expect(deepReply.id == "deep-reply")
            #expect(deepReply.status == .error)
            #expect(deepReply.error?.contains("\"reply_to\" has 201 levels, more than the limit of 200") == true, "\(deepReply)")

            // A text past 1000 characters with a valid id and reply topic: the error is answered there.
            let long = String(repeating: "turn on the kitchen light ", count: 40)
            try await mqtt.publish(to: "house/intent/request", payload: #"{"id":"long-1","text":"\#(long)","reply_to":"test/limits"}"#, qos: .atLeastOnce)
            let longReply = try await replies.nextReply("the error reply to the long text")
            #expect(longReply.id == "long-1")
            #expect(longReply.status == .error)
            #expect(longReply.error?.contains("\"text\" is 1040 characters long, more than the limit of 1000") == true, "\(longReply)")

            // A malformed rule payload (the movie button's JSON, nested too deep): ignored, no rule fires.
            try await mqtt.publish(to: "zigbee2mqtt/living-remote", payload: #"{"action":"double","x":"# + nesting + "}", qos: .atLeastOnce)
            _ = try await logged("ignored malformed payload on zigbee2mqtt/living-remote: JSON nested deeper than 32 levels")
            // An oversized state payload from another node's topic: ignored.
            try await mqtt.publish(to: "house/bedroom/bedroom-ceiling-light/state", payload: pad, qos: .atLeastOnce)
            _ = try await logged("ignored malformed payload on house/bedroom/bedroom-ceiling-light/state: payload of 70000 bytes")

            // Still serving: a set command switches the relay, an intent request gets its answer.
            try await mqtt.publish(to: "house/kitchen/kitchen-light/set", payload: #"{"state":"ON","id":"ok-1","reply_to":"test/limits"}"#, qos: .atLeastOnce)
            let on = try await replies.nextReply("the set command's reply")
            #expect(on.id == "ok-1")
            #expect(on.status == .done)
            _ = try await kitchen.first("the kitchen light on") { $0.string == "ON" }
            #expect(f.physicalLevel(of: "kitchen-light") == false)  // active-low board: on is low
            try await mqtt.publish(to: "house/intent/request", payload: #"{"id":"ok-2","text":"turn off the kitchen light","reply_to":"test/limits"}"#, qos: .atLeastOnce)
            let off = try await replies.nextReply("the intent request's answer")
            #expect(off.id == "ok-2")
            #expect(off.status == .done)
            _ = try await kitchen.first("the kitchen light off") { $0.string == "OFF" }
            #expect(f.edges(of: "kitchen-light").map(\.logical) == [true, false])
            #expect(try f.controller.store.history().allSatisfy { $0.source != "rule" })
            await mqtt.disconnect()
        }
        // No log line holds a payload whole.
        let whole = capture.lines.filter { $0.contains(String(repeating: "[", count: 100)) || $0.contains(String(repeating: "x", count: 100)) }
        #expect(whole.isEmpty, "\(whole.map { $0.prefix(200) })")
    }

    @Test func quickTogglesAreEachOneEdge() async throws {
        try await withController { f in
            let mqtt = try await f.mqttClient()
            let replies = try await mqtt.subscribe(to: "test/toggles")
            // Back to back: the relay events of earlier toggles trail the later commands.
            let count = 100
            for i in 1...count {
                let reply = i == count ? #","reply_to":"test/toggles""# : ""
                try await mqtt.publish(to: "house/kitchen/kitchen-light/set", payload: #"{"id":"t\#(i)","state":"TOGGLE"\#(reply)}"#, qos: .atLeastOnce)
            }
            #expect(try await replies.nextReply("the last toggle's reply").id == "t\(count)")
            let edges = f.edges(of: "kitchen-light").map(\.logical)
            #expect(edges.count == count)
            #expect(edges == (1...count).map { $0 % 2 == 1 })
            await mqtt.disconnect()
        }
    }

    /// A switch the safety rules defer (the office fan may switch at most every 5 s, counted
    /// from power-on) is answered with when it will happen, not a plain "done", and happens then.
    @Test func aDeferredSwitchSaysWhenItWillHappen() async throws {
        try await withController { f in
            let reply = try await f.client().send(.text("turn on the office fan"))
            #expect(reply.status == .done)
            #expect(reply.dialog.contains("The office fan will switch ON in"), "\(reply.dialog)")
            #expect(reply.dialog.contains("minimum interval of 5s"), "\(reply.dialog)")
            #expect(f.edges(of: "office-fan").isEmpty)
            let mqtt = try await f.mqttClient()
            let state = try await mqtt.subscribe(to: "house/office/office-fan/state")
            f.clock.advance(by: .seconds(5))
            _ = try await state.first("the fan switched on after its minimum interval") { $0.string == "ON" }
            #expect(f.edges(of: "office-fan").map(\.logical) == [true])
            await mqtt.disconnect()
        }
    }

    @Test func aRetainedCommandWaitingAtTheBrokerIsRefusedAndCleared() async throws {
        try await withTestBroker { broker in
            let stale = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: broker.port))
            try await stale.connect()
            try await stale.publish(to: "house/hall/hall-light/set", payload: "ON", qos: .atLeastOnce, retain: true)
            await stale.disconnect()
            try await withController(brokerPort: broker.port) { f in
                // The controller clears the stale command once it has refused it.
                try await broker.waitUntil(timeout: .seconds(10), "the stale command cleared") { snapshot in
                    snapshot.retained["house/hall/hall-light/set"] == nil
                }
                #expect(f.edges(of: "hall-light").isEmpty)
                #expect(try f.controller.store.history().isEmpty)
            }
        }
    }

    @Test func aRuleFiresAnIntent() async throws {
        try await withController { f in
            let mqtt = try await f.mqttClient()
            let hall = try await mqtt.subscribe(to: "house/hall/hall-light/state")
            let events = try await mqtt.subscribe(to: "house/events")
            try await mqtt.publish(to: "zigbee2mqtt/hall-button/action", payload: "double", qos: .atLeastOnce)
            try await mqtt.publish(to: "zigbee2mqtt/hall-button/action", payload: "single", qos: .atLeastOnce)
            _ = try await hall.first("the hall light toggled on by the rule") { $0.string == "ON" }
            #expect(f.edges(of: "hall-light").count == 1)
            // The state is out as the relay switches; the history is written after the intent,
            // before its donation on house/events: wait for that.
            _ = try await events.first("the rule's donation") { $0.string?.contains("\"source\":\"rule\"") == true }
            let history = try f.controller.store.history()
            #expect(history.contains { $0.source == "rule" && $0.outcome == "done" })
            await mqtt.disconnect()
        }
    }

    @Test func homeAssistantDiscoveryCarriesTheRequiredKeysAndIsSentAgain() async throws {
        try await withController { f in
            let mqtt = try await f.mqttClient()
            let configs = try await mqtt.subscribe(to: "homeassistant/light/+/kitchen_light/config")
            let retained = try await configs.next("the kitchen light discovery")
            #expect(retained.retain)
            let payload = try #require(try JSONSerialization.jsonObject(with: Data(retained.payload)) as? [String: Any])
            for key in ["name", "unique_id", "default_entity_id", "command_topic", "state_topic", "availability", "device", "origin"] {
                #expect(payload[key] != nil, "missing \(key)")
            }
            // The kitchen light was a switch before this version: that retained entity is cleared.
            let old = "homeassistant/switch/housectl_pi_main/kitchen_light/config"
            let oldConfigs = try await mqtt.subscribe(to: old)
            try await mqtt.publish(to: old, payload: #"{"name":"Kitchen ceiling light"}"#, qos: .atLeastOnce, retain: true)
            _ = try await oldConfigs.first("the old switch entity cleared") { $0.payload.isEmpty }
            // The energy sensor it announces has a retained state (kWh today).
            let energy = try await mqtt.subscribe(to: "house/energy/state").next("the energy state")
            #expect(energy.retain)
            #expect(Double(energy.string ?? "") != nil)
            try await mqtt.publish(to: "homeassistant/status", payload: "online", qos: .atLeastOnce)
            let again = try await configs.next("discovery sent again")
            #expect(again.payload == retained.payload)
            await mqtt.disconnect()
        }
    }

    /// Also with the routines off: the runner still ends temporary modes.
    @Test func aModeWithADurationRevertsOnTheClock() async throws {
        try await withController(routines: false) { f in
            let mqtt = try await f.mqttClient()
            let modes = try await mqtt.subscribe(to: "house/mode/state")
            #expect(try await f.client().send(.intent(.setMode(SetHouseModeIntent(mode: "day")))).status == .done)
            _ = try await modes.first("mode day") { $0.string == "day" }
            let movie = try await f.client().send(.intent(.setMode(SetHouseModeIntent(mode: "evening", duration: .seconds(1800)))))
            #expect(movie.status == .done)
            _ = try await modes.first("mode evening") { $0.string == "evening" }
            f.clock.advance(by: .seconds(1801))
            _ = try await modes.first("mode back to day") { $0.string == "day" }
            await mqtt.disconnect()
        }
    }
}
