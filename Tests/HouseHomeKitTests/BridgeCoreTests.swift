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

/// A device that has not reported its state (a Tasmota plug before its first report): its On is
/// read as "No Response" (-70402, the read answered 207), never as off; its first report is an
/// event to subscribers even when it is off.
@Suite struct UnknownStateTests {
    @Test(.timeLimit(.minutes(1))) func anUnreportedDeviceReadsAsNoResponseUntilItReports() async throws {
        let configuration = try HouseFixtures.exampleConfiguration()
        let house = FakeHomeKitHouse(configuration: configuration)
        let plug = DeviceID("office-plug")
        house.set(.device(plug), HomeKitDeviceState())
        let database = AccessoryDatabase.bridge(for: configuration, numbers: AccessoryNumbers(), firmware: "1.0.0")
        let core = BridgeCore(database: database, house: house, logger: Logger(label: "test"))
        await core.start()
        let (outgoing, queue) = AsyncStream<Outgoing>.makeStream()
        await core.register(1, outgoing: queue)
        let aid = try #require(database.accessory(of: plug)?.aid)
        let light = try #require(database.accessory(of: DeviceID("kitchen-light"))?.aid)
        let read = HAPRequest(method: "GET", path: "/characteristics", query: [("id", "\(aid).10,\(light).10")])
        let unknown = await core.read(read, connection: 1)
        #expect(unknown.status == 207)
        #expect(String(decoding: unknown.body, as: UTF8.self)
            == "{\"characteristics\":[{\"aid\":\(aid),\"iid\":10,\"status\":-70402},{\"aid\":\(light),\"iid\":10,\"value\":false,\"status\":0}]}")
        let (_, status) = await core.write(.object([("aid", .int(aid)), ("iid", .int(10)), ("ev", .bool(true))]), connection: 1)
        #expect(status == 0)
        // Its first report, off: an event, and reads give the value.
        await core.apply(.device(plug), HomeKitDeviceState(on: false))
        var events = outgoing.makeAsyncIterator()
        guard case .message(let bytes)? = await events.next() else { Issue.record("no event"); return }
        #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("{\"characteristics\":[{\"aid\":\(aid),\"iid\":10,\"value\":false}]}"))
        let known = await core.read(HAPRequest(method: "GET", path: "/characteristics", query: [("id", "\(aid).10")]), connection: 1)
        #expect(known.status == 200)
        #expect(String(decoding: known.body, as: UTF8.self) == "{\"characteristics\":[{\"aid\":\(aid),\"iid\":10,\"value\":false}]}")
        // Unknown again (never an event saying off), then on: the next event is the on.
        await core.apply(.device(plug), HomeKitDeviceState())
        await core.apply(.device(plug), HomeKitDeviceState(on: true))
        guard case .message(let next)? = await events.next() else { Issue.record("no event"); return }
        #expect(String(decoding: next, as: UTF8.self).hasSuffix("{\"characteristics\":[{\"aid\":\(aid),\"iid\":10,\"value\":true}]}"))
    }
}
