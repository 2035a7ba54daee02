import Foundation
import HouseCore
import HouseTesting
import Testing

/// Read-only sensors from MQTT: the value of a payload (the number itself, or a JSON field),
/// every bad payload a reason instead of a crash; the configuration; the answer to "what's the
/// temperature in the bedroom".
@Suite struct SensorTests {
    let at = WallInstant(HouseHarness.defaultStart)

    func reading(_ payload: String, field: String? = nil) -> SensorReading {
        SensorSource(stateTopic: "z2m/climate", jsonField: field, unit: "°C").reading(from: Array(payload.utf8), at: at)
    }

    @Test func payloadsGiveValuesOrReasons() {
        #expect(reading(" 19.5\n") == .value(19.5, at: at))
        #expect(reading(#"{"temperature":21.25,"humidity":48}"#, field: "temperature") == .value(21.25, at: at))
        #expect(reading(#"{"AM2301":{"Temperature":"18.0"}}"#, field: "AM2301.Temperature") == .value(18, at: at))
        #expect(reading("warm") == .unavailable(reason: "the payload 'warm' on z2m/climate is not a number"))
        #expect(reading("nan") == .unavailable(reason: "the payload 'nan' on z2m/climate is not a number"))
        #expect(reading("{not json", field: "temperature") == .unavailable(reason: "the payload '{not json' on z2m/climate is not JSON"))
        #expect(reading(#"{"humidity":48}"#, field: "temperature") == .unavailable(reason: "the payload on z2m/climate has no field temperature"))
        #expect(reading(#"{"temperature":null}"#, field: "temperature") == .unavailable(reason: "the payload on z2m/climate has no field temperature"))
        #expect(reading(#"{"temperature":[1]}"#, field: "temperature") == .unavailable(reason: "the field temperature on z2m/climate is not a number"))
        // Any bytes at all: a reason, never a crash.
        let junk = SensorSource(stateTopic: "t", jsonField: "a.b").reading(from: [0xff, 0x00, 0x7b], at: at)
        guard case .unavailable = junk else { Issue.record("junk gave \(junk)"); return }
    }

    @Test func theExampleHouseReadsTheBedroomTemperature() async throws {
        let h = try HouseHarness()
        let query = HouseIntent.query(QueryHouseStatusIntent(queryType: .deviceStates, room: "bedroom", device: "temperature"))
        #expect(await h.engine.process(query, source: .cli).dialog == "The bedroom temperature has not reported a value yet.")
        await h.engine.noteReading("bedroom-temperature", .value(19.5, at: at))
        #expect(await h.engine.process(query, source: .cli).dialog == "The bedroom temperature is 19.5 °C.")
        // `housectl status` shows the value in the state column.
        let status = await h.engine.process(.query(QueryHouseStatusIntent(queryType: .deviceStates, room: "bedroom")), source: .cli)
        #expect(status.response?.devices.first { $0.device == "bedroom-temperature" }?.value == "19.5 °C")
        #expect(status.response?.devices.first { $0.device == "bedroom-ceiling-light" }?.value == nil)
        await h.engine.noteReading("bedroom-temperature", .unavailable(reason: "the payload 'x' on t is not a number"))
        #expect(await h.engine.process(query, source: .cli).dialog
                == "The bedroom temperature is not available: the payload 'x' on t is not a number.")
        // It is read, never switched; "everything off" leaves it out.
        let off = await h.engine.process(.control(HouseControlIntent(room: "bedroom", action: .off, device: "temperature")), source: .cli)
        #expect(off.status == .unsupported)
        #expect(off.dialog.contains("is a sensor"))
        let all = await h.engine.process(.control(HouseControlIntent(room: "bedroom", action: .off, plural: true)), source: .cli)
        #expect(!all.commands.contains { $0.device == "bedroom-temperature" })
    }

    @Test func aSensorIsConfiguredWithATopicAndNoSwitchingKeys() throws {
        func load(_ devices: String, modes: String = "") -> [String] {
            let yaml = """
            house: {name: H, timezone: UTC, latitude: 50, longitude: 0}
            rooms: [{id: bedroom, name: Bedroom}]
            devices:
            \(devices)
            \(modes)
            """
            do {
                _ = try ConfigurationLoader().load(yaml: yaml, file: "test.yaml", boards: HouseFixtures.boards())
                return []
            } catch {
                return error.diagnostics.map { "\($0.line):\($0.column) \($0.message)" }
            }
        }
        #expect(load("  - {id: t, room: bedroom, kind: sensor, mqtt: {state_topic: z/c, json_field: temperature}, unit: °C, device_class: temperature}") == [])
        #expect(load("  - {id: t, room: bedroom, kind: sensor, mqtt: {state_topic: z/c}, watts: 5}")
                == ["4:68 watts in device 't' is for devices that switch; a sensor is only read from MQTT (mqtt: {state_topic: ...})"])
        #expect(load("  - {id: t, room: bedroom, kind: sensor, mqtt: {state_topic: z/+}}").first?.contains("expected a state topic without wildcards") == true)
        #expect(load("  - {id: t, room: bedroom, kind: sensor}").first?.contains("missing key 'mqtt'") == true)
        #expect(load("  - {id: t, room: bedroom, kind: sensor, mqtt: {state_topic: z/c}, device_class: smell}").first?.contains("device class") == true)
        #expect(load("  - {id: l, room: bedroom, kind: light, mqtt: {command_topic: l/set}, unit: W}")
                == ["4:71 unit in device 'l' is for sensors (kind: sensor)"])
        #expect(load("  - {id: t, room: bedroom, kind: sensor, mqtt: {state_topic: z/c}}", modes: "modes: [{id: night, devices: {t: OFF}}]")
                == ["5:31 device 't' in mode 'night' is a sensor: a mode can only switch devices"])
    }
}
