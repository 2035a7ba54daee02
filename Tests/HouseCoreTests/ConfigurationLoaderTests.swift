import Foundation
import Testing
import HouseCore
import HouseTesting

@Suite struct ConfigurationLoaderTests {
    @Test func exampleHouseLoads() throws {
        let config = try HouseFixtures.exampleConfiguration()
        #expect(config.rooms.count >= 6)
        #expect(config.devices.count >= 12)
        #expect(Set(config.modes.map(\.id)).isSuperset(of: ["morning", "day", "evening", "night", "away", "movie"]))
        #expect(config.node(id: "pi-main")?.board == "generic-8ch-optocoupler")
        let morning = try #require(config.routines.first { $0.shortcut == "Good morning house" })
        #expect(morning.relevant == TimeWindowSpec(from: .clock(TimeOfDay(hour: 6, minute: 0)),
                                                   to: .clock(TimeOfDay(hour: 9, minute: 0)), days: .weekdaysOnly))
        #expect(morning.runAt == .clock(TimeOfDay(hour: 6, minute: 30)))
        let night = try #require(config.routines.first { $0.shortcut == "Good night house" })
        #expect(night.relevant?.from == .sun(.sunset, offset: .zero))
        #expect(night.intent == .mode("night", duration: nil, rooms: []))
        let door = try #require(config.device(id: "garage-door"))
        #expect(door.confirm && door.opener == CoverOpener(node: "pi-garage", channel: 1, pulse: .seconds(1), travelTime: .seconds(15),
                                                           openContact: "garage-door-open", closedContact: "garage-door-closed"))
        let heater = try #require(config.device(id: "bathroom-heater"))
        #expect(heater.confirm && heater.maxOn == .seconds(7200))
        #expect(config.device(id: "office-plug")?.endpoint == .mqtt(MQTTDeviceEndpoint(
            commandTopic: "cmnd/office-plug/POWER", stateTopic: "stat/office-plug/POWER")))
        #expect(config.device(id: "living-shutter")?.motor == CoverMotor(node: "pi-main", upChannel: 3, downChannel: 4,
                                                                          openTime: .seconds(25), closeTime: .seconds(22)))
        #expect(config.house.timeZone.identifier == "Europe/London")
        #expect(config.permissions.grant(for: .mqtt).denyDevices == ["garage-door"])
        #expect(config.permissions.grant(for: .mqtt).allowConfirmDevices == false)
        #expect(config.mode(id: "night")?.devices["hall-light"] == .on)
        #expect(config.rules.first?.trigger == .mqtt(topic: "zigbee2mqtt/hall-button/action", payload: "single", jsonField: nil, jsonValue: nil))
    }

    @Test func shippedBoardsCarryTheirDocumentedLines() throws {
        let boards = HouseFixtures.boards()
        #expect(boards.count >= 3)
        let waveshare = try #require(boards["waveshare-rpi-relay-board"])
        #expect(waveshare.channels == [1: 26, 2: 20, 3: 21])
        #expect(waveshare.activeLow)
        let ks = try #require(boards["keyestudio-ks0212"])
        #expect(ks.channels == [1: 4, 2: 22, 3: 6, 4: 26])
        #expect(!ks.activeLow)
        let eight = try #require(boards["generic-8ch-optocoupler"])
        #expect(eight.channels.count == 8 && eight.activeLow)
        for board in boards.values { #expect(board.notes?.contains("http") == true, "\(board.id) cites its docs") }
    }
}
