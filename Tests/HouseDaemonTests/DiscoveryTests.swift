import Foundation
import HouseTesting
import Testing
@testable import HouseDaemon

@Suite struct DiscoveryTests {
    static let config = HouseConfiguration(
        house: HouseInfo(name: "Home", timeZone: HouseZone(identifier: "Europe/London")!, latitude: 51.5, longitude: -0.12),
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

    @Test func eachDeviceIsAHomeAssistantDeviceWithTheDomainPeopleExpect() throws {
        let d = HomeAssistantDiscovery(configuration: Self.config, node: "pi-main", layout: TopicLayout())
        let messages = d.messages
        let light = try decode(try #require(messages.first { $0.topic == "homeassistant/light/housectl_pi_main/bedroom_light/config" }).payload)
        for key in ["unique_id", "command_topic", "state_topic", "availability", "device", "origin", "default_entity_id"] {
            #expect(light[key] != nil, "missing \(key)")
        }
        // Named by its device alone (JSON null), which is named after the housectl device.
        #expect(light["name"] is NSNull)
        #expect(light["command_topic"] as? String == "house/bedroom/bedroom-light/set")
        #expect(light["default_entity_id"] as? String == "light.housectl_bedroom_light")
        #expect(light["object_id"] as? String == "housectl_bedroom_light")
        #expect(light["state_on"] == nil)  // not a key of the light schema
        let device = try #require(light["device"] as? [String: Any])
        #expect(device["identifiers"] as? [String] == ["housectl_device_bedroom_light"])
        #expect(device["name"] as? String == "Light")
        #expect(device["suggested_area"] as? String == "Bedroom")
        #expect(device["via_device"] as? String == "housectl_pi_main")
        #expect((light["origin"] as? [String: Any])?["name"] as? String == "housectl")

        // The MQTT plug, announced by the first node: a switch with the outlet class.
        let plug = try decode(try #require(messages.first { $0.topic == "homeassistant/switch/housectl_pi_main/plug/config" }).payload)
        #expect(plug["device_class"] as? String == "outlet")
        #expect(plug["state_on"] as? String == "ON")
        // The other node's relay is announced by that node, not this one.
        #expect(!messages.contains { $0.topic.contains("garage_door") })

        let select = try decode(try #require(messages.first { $0.topic.contains("/select/") }).payload)
        // HA reads the payload `none` as unknown: the select shows `no mode` for it.
        #expect(select["options"] as? [String] == ["night", "away", "no mode", "mixed"])
        #expect(select["value_template"] as? String == "{{ 'no mode' if value == 'none' else value }}")
        #expect(select["command_template"] as? String == "{{ 'none' if value == 'no mode' else value }}")
        #expect((select["device"] as? [String: Any])?["name"] as? String == "Home")
        let sensor = try decode(try #require(messages.first { $0.topic.hasSuffix("/energy_today/config") }).payload)
        #expect(sensor["unit_of_measurement"] as? String == "kWh")
        #expect(sensor["device_class"] as? String == "energy")
        #expect(sensor["state_class"] as? String == "total_increasing")

        let status = try decode(try #require(messages.first { $0.topic == "homeassistant/binary_sensor/housectl_pi_main/status/config" }).payload)
        #expect(status["device_class"] as? String == "connectivity")
        #expect(status["state_topic"] as? String == "house/node/pi-main/status")
        #expect(status["availability"] == nil)
        #expect((status["device"] as? [String: Any])?["identifiers"] as? [String] == ["housectl_pi_main"])
    }

    /// With several nodes that may coordinate, what the coordinator serves (the mode, a device
    /// reached over MQTT) is available while any of them is online; a relay stays with its node.
    @Test func theCoordinatorsEntitiesAreAvailableWhileAnyCandidateIsOnline() throws {
        var config = Self.config
        config.coordination = CoordinationSettings(nodes: ["pi-main", "pi-garage"])
        let d = HomeAssistantDiscovery(configuration: config, node: "pi-main", layout: TopicLayout())
        func availability(_ suffix: String) throws -> (topics: [String], mode: String?) {
            let entity = try decode(try #require(d.messages.first { $0.topic.hasSuffix(suffix) }).payload)
            let list = try #require(entity["availability"] as? [[String: Any]])
            return (list.compactMap { $0["topic"] as? String }, entity["availability_mode"] as? String)
        }
        let both = ["house/node/pi-main/status", "house/node/pi-garage/status"]
        #expect(try availability("/house_mode/config") == (both, "any"))
        #expect(try availability("/plug/config") == (both, "any"))
        #expect(try availability("/bedroom_light/config") == (["house/node/pi-main/status"], nil))
        // Without `coordination:`, the first node alone, as before.
        let alone = HomeAssistantDiscovery(configuration: Self.config, node: "pi-main", layout: TopicLayout())
        let mode = try decode(try #require(alone.messages.first { $0.topic.hasSuffix("/house_mode/config") }).payload)
        #expect(mode["availability_mode"] == nil)
        #expect((mode["availability"] as? [[String: Any]])?.count == 1)
    }

    /// What a user running Home Assistant meets: names that tell the three ceiling lights apart,
    /// the page one click away, each node's version, start and address, and refusals as events.
    @Test func namesAreDistinctThePageIsLinkedNodesSayWhatTheyRunRefusalsAreEvents() throws {
        let config = try HouseFixtures.exampleConfiguration()
        let main = HomeAssistantDiscovery(configuration: config, node: "pi-main", layout: TopicLayout())
        let bedroom = HomeAssistantDiscovery(configuration: config, node: "pi-bedroom", layout: TopicLayout())
        func device(_ d: HomeAssistantDiscovery, _ slug: String) throws -> [String: Any] {
            let entity = try decode(try #require(d.messages.first { $0.topic.hasSuffix("/\(slug)/config") }).payload)
            return try #require(entity["device"] as? [String: Any])
        }
        // "ceiling light" is three devices' first name: each gets its room; the office fan's
        // "fan" is the bedroom fan's too; the shutter's name is its own.
        #expect(try device(main, "living_ceiling_light")["name"] as? String == "Living room ceiling light")
        #expect(try device(main, "kitchen_light")["name"] as? String == "Kitchen ceiling light")
        #expect(try device(bedroom, "bedroom_ceiling_light")["name"] as? String == "Bedroom ceiling light")
        #expect(try device(main, "office_fan")["name"] as? String == "Office fan")
        #expect(try device(main, "living_shutter")["name"] as? String == "Shutter")
        // The example page listens on 127.0.0.1:8080.
        #expect(try device(main, "living_shutter")["configuration_url"] as? String == "http://127.0.0.1:8080/")
        #expect(try device(main, "status")["configuration_url"] as? String == "http://127.0.0.1:8080/")

        let started = try decode(try #require(main.messages.first { $0.topic == "homeassistant/sensor/housectl_pi_main/started/config" }).payload)
        #expect(started["state_topic"] as? String == "house/node/pi-main/info")
        #expect(started["value_template"] as? String == "{{ value_json.started }}")
        #expect(started["device_class"] as? String == "timestamp")
        #expect(started["entity_category"] as? String == "diagnostic")
        #expect(bedroom.messages.contains { $0.topic == "homeassistant/sensor/housectl_pi_bedroom/version/config" })

        let refused = try decode(try #require(main.messages.first { $0.topic.hasSuffix("/event/housectl_pi_main/refused_command/config") }).payload)
        #expect(refused["state_topic"] as? String == "house/events")
        #expect(refused["event_types"] as? [String] == ["refused", "failure"])
        #expect((refused["value_template"] as? String)?.contains("value_json.outcome in ['refused', 'failure']") == true)
        #expect(!bedroom.messages.contains { $0.topic.contains("refused_command") }, "one node announces the house")
    }

    @Test func secondNodeAnnouncesOnlyItsRelaysAndItself() {
        let d = HomeAssistantDiscovery(configuration: Self.config, node: "pi-garage", layout: TopicLayout())
        #expect(d.messages.map(\.topic) == ["homeassistant/switch/housectl_pi_garage/garage_door/config",
                                              "homeassistant/binary_sensor/housectl_pi_garage/status/config",
                                              "homeassistant/sensor/housectl_pi_garage/version/config",
                                              "homeassistant/sensor/housectl_pi_garage/started/config",
                                              "homeassistant/sensor/housectl_pi_garage/address/config"])
    }

    /// Never offer Home Assistant a control housectl refuses outright: the example house denies
    /// the garage door to MQTT (read-only), and MQTT may not confirm, so the heater is still a
    /// switch (off is its safe state) while a pulsed opener would not be.
    @Test func whatMQTTMayNotSwitchIsReadOnly() throws {
        let config = try HouseFixtures.exampleConfiguration()
        let garage = HomeAssistantDiscovery(configuration: config, node: "pi-garage", layout: TopicLayout())
        let door = try decode(try #require(garage.messages.first { $0.topic.hasSuffix("/garage_door/config") }).payload)
        // The garage door (denied to MQTT): a cover with its state from its contacts, no control.
        let garageDoor = try #require(config.device(id: "garage-door"))
        #expect(garage.domain(of: garageDoor) == "cover")
        #expect(door["command_topic"] == nil && door["device_class"] as? String == "garage")
        #expect(door["state_topic"] as? String == "house/garage/garage-door/state" && door["position_topic"] == nil)
        let main = HomeAssistantDiscovery(configuration: config, node: "pi-main", layout: TopicLayout())
        #expect(main.domain(of: try #require(config.device(id: "bathroom-heater"))) == "switch")
        #expect(main.domain(of: try #require(config.device(id: "kitchen-light"))) == "light")
        #expect(main.domain(of: try #require(config.device(id: "office-fan"))) == "fan")
        var opener = garageDoor
        opener.id = "side-gate"
        #expect(!main.isControllable(opener))  // pulsed, confirm: true, and MQTT may not confirm
        opener.confirm = false
        #expect(main.isControllable(opener))
        let gate = HomeAssistantDiscovery(configuration: HouseConfiguration(
            house: config.house, nodes: config.nodes, boards: config.boards, rooms: config.rooms, devices: [opener]), node: "pi-garage", layout: TopicLayout())
        let side = try decode(try #require(gate.messages.first { $0.topic.hasSuffix("/side_gate/config") }).payload)
        #expect(side["command_topic"] as? String == "house/garage/side-gate/set" && side["payload_open"] as? String == "OPEN")
    }

    @Test func aSensorIsAMeasurementWithItsUnitAndClass() throws {
        let config = try HouseFixtures.exampleConfiguration()
        let main = HomeAssistantDiscovery(configuration: config, node: "pi-main", layout: TopicLayout())
        let message = try #require(main.messages.first { $0.topic == "homeassistant/sensor/housectl_pi_main/bedroom_temperature/config" })
        let p = try decode(message.payload)
        #expect(p["unit_of_measurement"] as? String == "°C")
        #expect(p["device_class"] as? String == "temperature")
        #expect(p["state_class"] as? String == "measurement")
        #expect(p["state_topic"] as? String == "house/bedroom/bedroom-temperature/state")
        #expect(p["command_topic"] == nil)
        #expect((p["device"] as? [String: Any])?["suggested_area"] as? String == "Bedroom")
        // Available while its node is online and it has a fresh value.
        #expect(p["availability_mode"] as? String == "all")
        #expect((p["availability"] as? [[String: Any]])?.compactMap { $0["topic"] as? String }
                == ["house/node/pi-main/status", "house/bedroom/bedroom-temperature/availability"])
    }

    @Test func aCoverIsACoverWithItsPositionTopicsAndClass() throws {
        let config = try HouseFixtures.exampleConfiguration()
        let main = HomeAssistantDiscovery(configuration: config, node: "pi-main", layout: TopicLayout())
        let message = try #require(main.messages.first { $0.topic == "homeassistant/cover/housectl_pi_main/living_shutter/config" })
        let p = try decode(message.payload)
        #expect(p["device_class"] as? String == "shutter")
        #expect(p["command_topic"] as? String == "house/living-room/living-shutter/set")
        // State and position from the one report message: a stop part way is one change in HA.
        #expect(p["state_topic"] as? String == "house/living-room/living-shutter/report")
        #expect(p["value_template"] as? String == "{{ value_json.state }}")
        #expect(p["position_topic"] as? String == "house/living-room/living-shutter/report")
        #expect(p["position_template"] as? String == "{{ value_json.position }}")
        #expect(p["set_position_topic"] as? String == "house/living-room/living-shutter/position/set")
        #expect([p["payload_open"], p["payload_close"], p["payload_stop"]] as? [String] == ["OPEN", "CLOSE", "STOP"])
        #expect([p["state_open"], p["state_opening"], p["state_closed"], p["state_closing"]] as? [String]
                == ["open", "opening", "closed", "closing"])
        #expect(p["position_open"] as? Int == 100 && p["position_closed"] as? Int == 0)
        #expect(p["default_entity_id"] as? String == "cover.housectl_living_shutter")
        #expect((p["device"] as? [String: Any])?["suggested_area"] as? String == "Living room")
        #expect((p["device"] as? [String: Any])?["via_device"] as? String == "housectl_pi_main")
        // The windings are no entities of their own.
        #expect(!main.messages.contains { $0.topic.contains("living_shutter_") && $0.topic.hasSuffix("/config") && !$0.topic.contains("energy") })
    }

    @Test func aButtonIsAnEventAndAContactABinarySensorWithItsClass() throws {
        let config = try HouseFixtures.exampleConfiguration()
        let main = HomeAssistantDiscovery(configuration: config, node: "pi-main", layout: TopicLayout())
        let button = try decode(try #require(main.messages.first { $0.topic == "homeassistant/event/housectl_pi_main/hall_button/config" }).payload)
        #expect(button["state_topic"] as? String == "house/hall/hall-button/event")
        #expect(button["event_types"] as? [String] == ["single", "double", "long"])
        #expect(button["device_class"] as? String == "button" && button["command_topic"] == nil)
        let door = try decode(try #require(main.messages.first { $0.topic == "homeassistant/binary_sensor/housectl_pi_main/back_door/config" }).payload)
        #expect(door["state_topic"] as? String == "house/kitchen/back-door/state")
        #expect(door["device_class"] as? String == "door")
        #expect(door["payload_on"] as? String == "ON" && door["payload_off"] as? String == "OFF" && door["command_topic"] == nil)
        #expect((door["device"] as? [String: Any])?["suggested_area"] as? String == "Kitchen")
        // Announced by the node they are wired to only.
        let garage = HomeAssistantDiscovery(configuration: config, node: "pi-garage", layout: TopicLayout())
        #expect(!garage.messages.contains { $0.topic.contains("back_door") || $0.topic.contains("hall_button") })
    }

    @Test func removedDeviceIsCleared() {
        let d = HomeAssistantDiscovery(configuration: Self.config, node: "pi-main", layout: TopicLayout())
        let stale = "homeassistant/switch/housectl_pi_main/old_lamp/config"
        let seen = Set(d.messages.map(\.topic)).union([stale])
        #expect(d.clearing(stale: seen) == [.init(topic: stale, payload: "")])
    }

    /// The energy state's text (HA's sensor): kWh with three decimals, whatever the figure.
    @Test func energyIsWrittenInKilowattHoursWithThreeDecimals() {
        #expect(HouseEngine.kilowattHoursText(0) == "0.000")
        #expect(HouseEngine.kilowattHoursText(1.2346) == "1.235")
        #expect(HouseEngine.kilowattHoursText(12.05) == "12.050")
        #expect(HouseEngine.kilowattHoursText(0.0004) == "0.000")
        #expect(HouseEngine.kilowattHoursText(0.0996) == "0.100")
        #expect(HouseEngine.kilowattHoursText(-1) == "0.000")
    }
}
