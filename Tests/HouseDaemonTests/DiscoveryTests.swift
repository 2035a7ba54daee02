import Foundation
import Testing
@testable import HouseDaemon

@Suite struct DiscoveryTests {
    static let config = HouseConfiguration(
        house: HouseInfo(name: "Home", timeZone: TimeZone(identifier: "Europe/London")!, latitude: 51.5, longitude: -0.12),
        nodes: [Node(id: "pi-main", board: "b"), Node(id: "pi-garage", board: "b")],
        rooms: [Room(id: "bedroom", name: "Bedroom"), Room(id: "garage", name: "Garage")],
        devices: [
            Device(id: "bedroom-light", room: "bedroom", kind: .light, names: ["light"], endpoint: .relay(RelayRef(node: "pi-main", channel: 1))),
            Device(id: "garage-door", room: "garage", kind: .door, names: ["garage door"], endpoint: .relay(RelayRef(node: "pi-garage", channel: 1))),
            Device(id: "plug", room: "bedroom", kind: .plug, names: ["plug"], endpoint: .mqtt(MQTTDeviceEndpoint(commandTopic: "tasmota/plug/cmnd/POWER"))),
        ],
        modes: [Mode(id: "night"), Mode(id: "away")]
    )

    func decode(_ s: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(s.utf8)) as? [String: Any])
    }

    @Test func switchesCarryTheKeysHomeAssistantRequires() throws {
        let d = HomeAssistantDiscovery(configuration: Self.config, node: "pi-main", layout: TopicLayout())
        let messages = d.messages()
        let light = try #require(messages.first { $0.topic == "homeassistant/switch/housectl_pi_main/bedroom_light/config" })
        let p = try decode(light.payload)
        for key in ["name", "unique_id", "command_topic", "state_topic", "availability", "device"] {
            #expect(p[key] != nil, "missing \(key)")
        }
        #expect(p["command_topic"] as? String == "house/bedroom/bedroom-light/set")
        let device = try #require(p["device"] as? [String: Any])
        #expect((device["identifiers"] as? [String])?.isEmpty == false)
        // The other node's relay is announced by that node, not this one; the MQTT plug by the first node.
        #expect(!messages.contains { $0.topic.contains("garage_door") })
        #expect(messages.contains { $0.topic.contains("/plug/") })
        let select = try decode(try #require(messages.first { $0.topic.contains("/select/") }).payload)
        #expect(select["options"] as? [String] == ["night", "away"])
        let sensor = try decode(try #require(messages.first { $0.topic.contains("/sensor/") }).payload)
        #expect(sensor["unit_of_measurement"] as? String == "kWh")
        #expect(sensor["device_class"] as? String == "energy")
    }

    @Test func secondNodeAnnouncesOnlyItsRelays() {
        let d = HomeAssistantDiscovery(configuration: Self.config, node: "pi-garage", layout: TopicLayout())
        #expect(d.messages().map(\.topic) == ["homeassistant/switch/housectl_pi_garage/garage_door/config"])
    }

    @Test func removedDeviceIsCleared() {
        let d = HomeAssistantDiscovery(configuration: Self.config, node: "pi-main", layout: TopicLayout())
        let stale = "homeassistant/switch/housectl_pi_main/old_lamp/config"
        let seen = Set(d.messages().map(\.topic)).union([stale])
        #expect(d.clearing(stale: seen) == [.init(topic: stale, payload: "")])
    }

    /// The energy state's text (HA's sensor): kWh with three decimals, whatever the figure.
    @Test func energyIsWrittenInKilowattHoursWithThreeDecimals() {
        #expect(IntentGateway.kilowattHoursText(0) == "0.000")
        #expect(IntentGateway.kilowattHoursText(1.2346) == "1.235")
        #expect(IntentGateway.kilowattHoursText(12.05) == "12.050")
        #expect(IntentGateway.kilowattHoursText(0.0004) == "0.000")
        #expect(IntentGateway.kilowattHoursText(0.0996) == "0.100")
        #expect(IntentGateway.kilowattHoursText(-1) == "0.000")
    }
}
