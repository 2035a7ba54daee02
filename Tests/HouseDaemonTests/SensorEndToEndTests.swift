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
}
