import Foundation
import HouseCore
import HouseHomeKitTesting
import HouseTesting
import Logging
import Testing

@testable import HouseHomeKit

/// Events: a change goes to every connection subscribed to what changed, except the one whose
/// write caused it; a later change of the same value made elsewhere reaches everybody again.
@Suite struct BridgeCoreTests {
    @Test(.timeLimit(.minutes(1))) func eventsGoToSubscribersButNotToTheWriter() async throws {
        let configuration = try HouseFixtures.exampleConfiguration()
        let house = FakeHomeKitHouse(configuration: configuration)
        let database = AccessoryDatabase.bridge(for: configuration, numbers: AccessoryNumbers(), firmware: "1.0.0")
        let core = BridgeCore(database: database, house: house, logger: Logger(label: "test"))
        await core.start()
        let (writer, writerQueue) = AsyncStream<Outgoing>.makeStream()
        let (other, otherQueue) = AsyncStream<Outgoing>.makeStream()
        await core.register(1, outgoing: writerQueue)
        await core.register(2, outgoing: otherQueue)
        let light = DeviceID("kitchen-light")
        let aid = try #require(database.accessory(of: light)?.aid)
        for connection in [1, 2] {
            let (_, status) = await core.write(.object([("aid", .int(aid)), ("iid", .int(10)), ("ev", .bool(true))]), connection: connection)
            #expect(status == 0)
        }
        let (_, status) = await core.write(.object([("aid", .int(aid)), ("iid", .int(10)), ("value", .int(1))]), connection: 1)
        #expect(status == 0)
        #expect(house.writes == [.setOn(light, true)])
        let change = { (value: Bool) in
            String(decoding: HAPResponse.event(Array("{\"characteristics\":[{\"aid\":\(aid),\"iid\":10,\"value\":\(value)}]}".utf8)).encoded(), as: UTF8.self)
        }
        // Elsewhere: off, then on again (the value the writer once wrote). The fake's changes
        // reach the core through its stream, as the bridge's run loop feeds them.
        let changes = house.changes()
        let feed = Task { for await (item, state) in changes { await core.apply(item, state) } }
        defer { feed.cancel() }
        house.set(.device(light), HomeKitDeviceState(on: false))
        house.set(.device(light), HomeKitDeviceState(on: true))
        var otherEvents: [String] = [], writerEvents: [String] = []
        var otherIterator = other.makeAsyncIterator(), writerIterator = writer.makeAsyncIterator()
        while otherEvents.count < 3, case .message(let bytes)? = await otherIterator.next() { otherEvents.append(String(decoding: bytes, as: UTF8.self)) }
        while writerEvents.count < 2, case .message(let bytes)? = await writerIterator.next() { writerEvents.append(String(decoding: bytes, as: UTF8.self)) }
        #expect(otherEvents == [change(true), change(false), change(true)])
        #expect(writerEvents == [change(false), change(true)])
    }
}
