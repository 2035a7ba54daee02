import Testing
import HouseCore
import HouseTesting

/// Odd input gets a clear, located error, never a crash.
@Suite struct ConfigurationEdgeCaseTests {
    func messages(_ yaml: String) -> [ConfigDiagnostic] {
        do {
            _ = try ConfigurationLoader().load(yaml: yaml, file: "edge.yaml", boards: HouseFixtures.boards())
            Issue.record("expected an error for:\n\(yaml)")
            return []
        } catch {
            return error.diagnostics
        }
    }

    static let base = """
        house: {name: H, timezone: UTC, latitude: 0, longitude: 0}
        nodes: [{id: pi-main, board: waveshare-rpi-relay-board}]
        rooms: [{id: hall}]

        """

    @Test func emptyAndScalarDocuments() {
        #expect(messages("").first?.message.contains("empty") == true)
        #expect(messages("just a string").first?.message == "expected the configuration as a mapping of key: value, found 'just a string'")
    }

    @Test func duplicateKeysAndMisspeltSections() {
        let dup = messages("house: {name: A}\nhouse: {name: B}\n")
        #expect(dup.first?.message.contains("duplicate key 'house'") == true)
        let typo = messages(Self.base + "device: []\n")
        #expect(typo.contains { $0.message.contains("unknown key 'device' in the configuration (did you mean 'devices'?)") && $0.line == 4 })
        #expect(typo.contains { $0.message.contains("missing key 'devices'") })
    }

    @Test func absurdNumbersAreRefusedNotTrapped() {
        let yaml = Self.base + """
            devices:
              - {id: a, room: hall, kind: light, pulse: 1e300, max_on: 99999999999999999999s, relay: {node: pi-main, channel: 1}}
              - {id: b, room: hall, kind: light, watts: 1e400, relay: {node: pi-main, channel: 99999999999999999999}}
            routines:
              - {id: r, shortcut: R, run_at: sunset+1e300s, intent: {device: a, action: on}}
            """
        let found = messages(yaml)
        #expect(found.filter { $0.line == 5 }.count == 2)
        #expect(found.filter { $0.line == 6 }.count == 2)
        #expect(found.contains { $0.line == 8 && $0.message.contains("sunset+1e300s") })
        #expect(DurationParser.parseChecked("1e300") == nil)
        #expect(DurationParser.parseChecked("1h30m") == .seconds(5400))
    }

    @Test func mqttSettingsAreRead() throws {
        let yaml = Self.base + """
            mqtt: {broker: external, host: mqtt.local, username: house, password_env: HOUSE_PW, tls: {ca_file: /etc/ca.crt}, base_topic: home/a}
            devices: []
            """
        let config = try ConfigurationLoader().load(yaml: yaml, file: "edge.yaml", boards: HouseFixtures.boards())
        #expect(config.mqtt.broker == .external(host: "mqtt.local", port: 8883))
        #expect(config.mqtt.tls?.caFile == "/etc/ca.crt")
        #expect(config.mqtt.passwordEnv == "HOUSE_PW")
        #expect(config.mqtt.baseTopic == "home/a")
        let both = messages(Self.base + "mqtt: {host: h, password_file: /p, password_env: P, base_topic: 'a/#'}\ndevices: []\n")
        #expect(both.contains { $0.message.contains("either password_file or password_env") })
        #expect(both.contains { $0.message.contains("without wildcards") })
    }
}
