import Testing
import HouseGPIO
import HouseTesting

@Suite struct RelayReportsTests {
    @Test func nodeIsTheRequestedOneTheOnlyOneOrThisHost() throws {
        let config = GPIOFixtures.configuration()
        #expect(try RelayReports.node(in: config, requested: "pi-garage") == "pi-garage")
        #expect(try RelayReports.node(in: config, requested: nil, hostName: "pi-main.local") == "pi-main")
        let e = #expect(throws: GPIOError.self) { try RelayReports.node(in: config, requested: nil, hostName: "laptop") }
        #expect(e?.description.contains("this host (laptop) is not one of the nodes (pi-main, pi-garage); choose one with --node") == true)
        #expect(throws: GPIOError.self) { try RelayReports.node(in: config, requested: "pi-attic") }
    }

    @Test func relaysOnTheSimulationShowPowerOnLevels() throws {
        let text = try RelayReports.relays(configuration: GPIOFixtures.configuration(), node: "pi-main", gpio: "sim")
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "node pi-main, board relay-8ch")
        #expect(lines.contains { $0.hasPrefix("6   20    pump           low     housectl  ON       low") })
        #expect(lines.contains { $0.hasPrefix("1   5     bedroom-light  low     housectl  OFF      high") })
        #expect(lines.contains("  bedroom-light: OFF (power_on: restore, no saved state)"))
        #expect(lines.contains("interlock shutter: shutter-up, shutter-down, dead time 500ms"))
    }

    @Test func bootConfigCoversEveryNodeWhenThisHostIsNone() throws {
        let text = try RelayReports.bootConfig(configuration: GPIOFixtures.configuration(), node: nil, hostName: "laptop")
        #expect(text.contains("node \"pi-main\""))
        #expect(text.contains("node \"pi-garage\""))
        let one = try RelayReports.bootConfig(configuration: GPIOFixtures.configuration(), node: "pi-garage")
        #expect(one.contains("# channel 1: hall-light (room hall), active-low: off = high\ngpio=5=op,dh\n"))
        #expect(!one.contains("pi-main"))
    }
}
