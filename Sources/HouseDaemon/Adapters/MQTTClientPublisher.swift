import HouseCore
import HouseMQTT

/// `HouseService`'s MQTT seam on our libmosquitto client: commands to devices that live elsewhere
/// and to relays of other nodes, at QoS 1 (queued with a time to live while disconnected).
struct MQTTClientPublisher: MQTTPublisher {
    let client: MQTTClient

    func publish(topic: String, payload: String, retain: Bool) async throws {
        try await client.publish(to: topic, payload: payload, qos: .atLeastOnce, retain: retain)
    }
}
