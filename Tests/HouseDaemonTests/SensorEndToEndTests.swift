import Foundation
import HouseCore
import HouseMQTT
import HouseTesting
import Testing

/// The example house's bedroom temperature, from a zigbee2mqtt-like topic: the value is mirrored
/// on the sensor's state topic and answers "what's the temperature in the bedroom"; a bad payload
/// makes it unavailable with the reason, and nothing crashes. The payload and the question come
/// from one client, so they reach the controller in that order.
@Suite(.timeLimit(.minutes(1)))
struct SensorEndToEndTests {
    @Test func theBedroomTemperatureIsReadFromItsTopicAndAnswered() async throws {
        try await withController { f in
            let mqtt = try await f.mqttClient()
            let replies = try await mqtt.subscribe(to: "test/sensor/replies", qos: .atLeastOnce)
            let mirror = try await mqtt.subscribe(to: "house/bedroom/bedroom-temperature/state", qos: .atLeastOnce)
            func ask(_ id: String) async throws -> String {
                try await mqtt.publish(to: "house/intent/request", payload: #"{"id":"\#(id)","text":"what's the temperature in the bedroom","reply_to":"test/sensor/replies"}"#,
                                       qos: .atLeastOnce)
                return try await replies.nextReply("the answer \(id)").dialog
            }
            try await mqtt.publish(to: "zigbee2mqtt/bedroom-climate", payload: #"{"temperature":19.5,"humidity":48,"linkquality":120}"#,
                                   qos: .atLeastOnce)
            #expect(try await ask("t1") == "The bedroom temperature is 19.5 °C.")
            #expect(try await mirror.next("the mirrored value").string == "19.5")
            try await mqtt.publish(to: "zigbee2mqtt/bedroom-climate", payload: "offline", qos: .atLeastOnce)
            #expect(try await ask("t2") == "The bedroom temperature is not available: the payload 'offline' on zigbee2mqtt/bedroom-climate is not JSON.")
            try await mqtt.publish(to: "zigbee2mqtt/bedroom-climate", payload: #"{"temperature":20}"#, qos: .atLeastOnce)
            #expect(try await ask("t3") == "The bedroom temperature is 20 °C.")
            #expect(try await mirror.next("the mirrored 20").string == "20")
            // Asked to switch, a sensor refuses, and its mirrored value is not overwritten with a
            // switch state: the next mirror message is the next reading.
            try await mqtt.publish(to: "house/intent/request", payload: #"{"id":"t4","text":"turn off the bedroom temperature","reply_to":"test/sensor/replies"}"#,
                                   qos: .atLeastOnce)
            #expect(try await replies.nextReply("the refusal").status == .unsupported)
            try await mqtt.publish(to: "zigbee2mqtt/bedroom-climate", payload: #"{"temperature":21}"#, qos: .atLeastOnce)
            #expect(try await mirror.next("the mirrored 21").string == "21")
            await mqtt.disconnect()
        }
    }

    /// Its availability topic follows the readings (Home Assistant's sensor shows unavailable),
    /// a value older than `stale_after` (1h in the example) makes it unavailable, and a value
    /// crossing 25 °C switches the bedroom fan on (rule bedroom-too-warm), once per crossing.
    @Test func availabilityStalenessAndAThresholdRule() async throws {
        try await withController { f in
            let mqtt = try await f.mqttClient()
            let availability = try await mqtt.subscribe(to: "house/bedroom/bedroom-temperature/availability", qos: .atLeastOnce)
            let fan = try await mqtt.subscribe(to: "house/node/pi-bedroom/relay", qos: .atLeastOnce)
            #expect(try await availability.next("offline before any value").string == "offline")
            func send(_ celsius: Double) async throws {
                try await mqtt.publish(to: "zigbee2mqtt/bedroom-climate", payload: #"{"temperature":\#(celsius)}"#, qos: .atLeastOnce)
            }
            try await send(24)
            #expect(try await availability.next("online with a value").string == "online")
            try await send(26)  // crosses 25: the rule switches the fan (on pi-bedroom, through its relay topic)
            let on = try await fan.next("the fan's relay command")
            #expect(on.string == #"{"device":"bedroom-fan","state":"ON"}"#)
            try await send(27)  // still above: no second command
            try await send(24)
            // A request on the same connection comes after them; once it is answered, a marker
            // published on the fan's topic must be the next message there (no command between).
            let replies = try await mqtt.subscribe(to: "test/sensor/barrier", qos: .atLeastOnce)
            try await mqtt.publish(to: "house/intent/request", payload: #"{"id":"b1","intent":"query","query":"mode","reply_to":"test/sensor/barrier"}"#,
                                   qos: .atLeastOnce)
            _ = try await replies.nextReply("the barrier")
            try await mqtt.publish(to: "house/node/pi-bedroom/relay", payload: "marker", qos: .atLeastOnce)
            #expect(try await fan.next("the marker").string == "marker", "27 and 24 switched nothing")
            try await send(25.5)  // crosses again
            #expect(try await fan.next("the second crossing").string == #"{"device":"bedroom-fan","state":"ON"}"#)
            // An hour and a minute with no value: the minute's check makes it unavailable.
            f.clock.advance(by: .seconds(3660))
            #expect(try await availability.next("offline once stale").string == "offline")
            let asked = try await f.client().send(.text("what's the temperature in the bedroom"))
            #expect(asked.dialog.contains("not available: no value on zigbee2mqtt/bedroom-climate for more than 1h (stale_after)"), "\(asked.dialog)")
            try await send(20)
            #expect(try await availability.next("online again").string == "online")
            await mqtt.disconnect()
        }
    }
}
