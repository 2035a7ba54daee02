/// The seam between `HouseService` and MQTT, for devices that live elsewhere (a smart plug's
/// command topic) and relays owned by other nodes (their `<base>/<room>/<device>/set` topic).
///
/// `HouseMQTT`'s client implements it; `HouseTesting.FakePublisher` records messages for tests.
public protocol MQTTPublisher: Sendable {
    func publish(topic: String, payload: String, retain: Bool) async throws
}
