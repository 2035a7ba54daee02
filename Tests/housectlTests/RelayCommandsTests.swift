import Foundation
import Testing
@testable import housectl
import HouseTesting

@Suite struct RelayCommandsTests {
    let config = HouseFixtures.exampleConfigPath

    @Test func relaysListsEveryChannelOfTheNodeOnTheSimulation() throws {
        let out = try RelaysCommand.parse(["--gpio", "sim", "--node", "pi-main", "--config", config]).execute()
        #expect(out.exitCode == 0)
        #expect(out.text.contains("CH  LINE  DEVICE"))
        let rows = out.text.split(separator: "\n").filter { $0.contains(" housectl ") }
        #expect(rows.count == 8)
        // Active-low board: off is a high physical level.
        #expect(rows.allSatisfy { $0.hasSuffix("OFF      high") })
        #expect(out.text.contains("interlock living-shutter"))
    }

    @Test func unknownNodeNamesTheNodesThatExist() throws {
        let out = try RelaysCommand.parse(["--gpio", "sim", "--node", "nope", "--config", config]).execute()
        #expect(out.exitCode == 1)
        #expect(out.errors.contains("nodes: pi-main, pi-bedroom, pi-garage"))
    }

    @Test func bootConfigHoldsEveryRelayLineAtItsOffLevel() throws {
        let out = try BootConfigCommand.parse(["--node", "pi-main", "--config", config]).execute()
        #expect(out.exitCode == 0)
        let lines = out.text.split(separator: "\n").filter { $0.hasPrefix("gpio=") && $0.contains("=op,") }
        #expect(lines.count == 8)
        #expect(lines.allSatisfy { $0.hasSuffix("=op,dh") })
        #expect(out.text.contains("gpio=17=ip,pu") && out.text.contains("gpio=27=ip,pu"), "the inputs' pulls")
        #expect(out.text.contains("# channel 8: bathroom-heater"))
    }
}
