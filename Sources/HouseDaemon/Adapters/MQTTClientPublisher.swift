import HouseCore
import HouseMQTT

/// `HouseService`'s MQTT seam on our libmosquitto client: commands to devices that live elsewhere
/// and to relays of other nodes, at QoS 1 (queued with a time to live while disconnected).
///
/// The PUBACK is not awaited in line: libmosquitto sends the message again until the broker has
/// it (after a reconnect too), so delivery stays at least once, and a broker that stops answering
/// cannot hold the command bus (and with it every other command, and the shutdown).
struct MQTTClientPublisher: MQTTPublisher {
    let client: MQTTClient

    func publish(topic: String, payload: String, retain: Bool) async throws {
        try client.send(MQTTMessage(topic: topic, string: payload, qos: .atLeastOnce, retain: retain))
    }
}
