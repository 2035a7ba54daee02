import Foundation
import HouseCore
import HouseGPIO
import HouseMQTT
import HouseTesting
import Testing

/// The example house's shutter, a cover of two windings (up on channel 3, down on channel 4,
/// opening in 25 s, closing in 22 s, end margin 2.5 s), driven over MQTT as Home Assistant drives
/// it: the windings run for the time the position asks, the relay bank ends each run on time and
/// reverses through the dead time, the state and position topics follow, and the position
/// survives a restart, assumed.
@Suite(.timeLimit(.minutes(1)))
final class CoverTests {
    let directory = NSTemporaryDirectory() + "housectl-cover-\(UUID().uuidString)"
    deinit { try? FileManager.default.removeItem(atPath: directory) }

    static let set = "house/living-room/living-shutter/set"
    static let positionSet = "house/living-room/living-shutter/position/set"

    /// Home Assistant reads the report: one message a second while the shutter moves, then one
    /// at the stop with its state and final position together.
    @Test func aMovingCoverReportsItsPositionEverySecondAndOnceAtTheStop() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_795_521_600))
        try await withController(stateDirectory: directory, clock: clock, bootID: "boot-r") { f in
            let mqtt = try await f.mqttClient()
            let reports = try await mqtt.subscribe(to: "house/living-room/living-shutter/report", qos: .atLeastOnce)
            #expect(try await reports.next("the report at start").string == #"{"assumed":true,"position":0,"state":"closed"}"#)
            clock.advance(by: .seconds(1))
            // Assumed closed: OPEN runs a full travel, so 40% is 10 s of the 25 s opening.
            _ = try await mqtt.publish(MQTTMessage(topic: Self.set, string: "OPEN", qos: .atLeastOnce, retain: false))
            _ = try await reports.first("opening") { $0.string?.contains(#""state":"opening""#) == true }
            for second in 1...10 {
                clock.advance(by: .seconds(1))
                let percent = second * 100 / 25
                let report = try await reports.next("at \(second) s")
                #expect(report.string == #"{"assumed":true,"position":\#(percent),"state":"opening"}"#, "at \(second) s")
            }
            _ = try await mqtt.publish(MQTTMessage(topic: Self.set, string: "STOP", qos: .atLeastOnce, retain: false))
            let stop = try await reports.next("the stop")
            #expect(stop.string == #"{"assumed":true,"position":40,"state":"open"}"#)
            // Stopped: no more reports however long the clock runs; the next is the next move's.
            clock.advance(by: .seconds(5))
            _ = try await f.client().send(.intent(.query(QueryHouseStatusIntent(queryType: .mode))))
            _ = try await mqtt.publish(MQTTMessage(topic: Self.set, string: "CLOSE", qos: .atLeastOnce, retain: false))
            clock.advance(by: .milliseconds(500))
            #expect(try await reports.next("closing").string == #"{"assumed":true,"position":40,"state":"closing"}"#)
            await mqtt.disconnect()
        }
    }

    @Test func openSetPositionReverseAndRestart() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_795_521_600))
        try await withController(stateDirectory: directory, clock: clock, bootID: "boot-c") { f in
            let mqtt = try await f.mqttClient()
            let state = try await mqtt.subscribe(to: "house/living-room/living-shutter/state", qos: .atLeastOnce)
            let position = try await mqtt.subscribe(to: "house/living-room/living-shutter/position", qos: .atLeastOnce)
            #expect(try await state.next("the state at start").string == "closed")
            #expect(try await position.next("the position at start").string == "0")
            func send(_ topic: String, _ payload: String) async throws {
                _ = try await mqtt.publish(MQTTMessage(topic: topic, string: payload, qos: .atLeastOnce, retain: false))
            }

            // Past the dead time after power-on (a motor may have been running when the Pi
            // started), then OPEN: never seen moving, it runs the up winding a full travel and
            // the margin.
            clock.advance(by: .seconds(1))
            try await send(Self.set, "OPEN")
            _ = try await state.first("opening") { $0.string == "opening" }
            #expect(f.edges(of: "living-shutter/up").map(\.logical) == [true])
            clock.advance(by: .milliseconds(27_499))
            #expect(f.edges(of: "living-shutter/up").map(\.logical) == [true], "still running before 27.5 s")
            clock.advance(by: .milliseconds(1))
            _ = try await position.first("open at 100") { $0.string == "100" }
            _ = try await state.first("open") { $0.string == "open" }
            #expect(f.edges(of: "living-shutter/up").map(\.logical) == [true, false])

            // To 40%: 60% of the 22 s closing, no margin, after the dead time from the up
            // winding's stop.
            try await send(Self.positionSet, "40")
            _ = try await f.client().send(.intent(.query(QueryHouseStatusIntent(queryType: .mode))))
            #expect(f.edges(of: "living-shutter/down").isEmpty, "the down winding waits the dead time")
            clock.advance(by: .milliseconds(500))
            _ = try await state.first("closing") { $0.string == "closing" }
            clock.advance(by: .milliseconds(13_200))
            _ = try await position.first("at 40") { $0.string == "40" }
            _ = try await state.first("stopped part way: open, as Home Assistant understands it") { $0.string == "open" }

            // Reversal: closing (at once: the down winding was the last to run), then OPEN after 2.2 s (10% of the closing travel): the down
            // winding goes off at once, and the up one on only after the 500 ms dead time.
            try await send(Self.set, "CLOSE")
            _ = try await state.first("closing again") { $0.string == "closing" }
            clock.advance(by: .milliseconds(2_200))
            try await send(Self.set, "OPEN")
            _ = try await position.first("stopped at 30 by the reversal") { $0.string == "30" }
            #expect(f.edges(of: "living-shutter/up").map(\.logical) == [true, false], "the up winding waits the dead time")
            clock.advance(by: .milliseconds(500))
            _ = try await state.first("opening after the dead time") { $0.string == "opening" }
            let downOff = try #require(f.edges(of: "living-shutter/down").last)
            let upOn = try #require(f.edges(of: "living-shutter/up").last)
            #expect(!downOff.logical && upOn.logical && upOn.at - downOff.at == .milliseconds(500))
            // From 30%: 70% of 25 s and the margin.
            clock.advance(by: .milliseconds(17_500 + 2_500))
            _ = try await position.first("open again") { $0.string == "100" }

            // STOP while moving stops where it is; a malformed position is refused, nothing moves.
            try await send(Self.positionSet, "50")
            clock.advance(by: .milliseconds(500))
            _ = try await state.first("closing to 50") { $0.string == "closing" }
            clock.advance(by: .milliseconds(4_400))
            try await send(Self.set, "STOP")
            _ = try await position.first("stopped at 80") { $0.string == "80" }
            let edgesBefore = f.chip.edges.count
            try await send(Self.positionSet, "140")
            try await send(Self.set, "{\"position\": 80}")
            // The bus is serial: once a later command is answered, the ones before it are done.
            _ = try await f.client().send(.intent(.query(QueryHouseStatusIntent(queryType: .mode))))
            #expect(f.chip.edges.count == edgesBefore, "140 is refused and 80 is where it is")
            let report = await f.controller.engine.coverReport(of: try #require(f.controller.configuration.device(id: "living-shutter")))
            #expect(report == CoverReport(state: .stopped, position: 80, assumed: false))
            await mqtt.disconnect()
        }
        // A restart: the position comes back, assumed (the cover may have moved by hand).
        try await withController(stateDirectory: directory, clock: clock, bootID: "boot-c") { f in
            let mqtt = try await f.mqttClient()
            let position = try await mqtt.subscribe(to: "house/living-room/living-shutter/position", qos: .atLeastOnce)
            let state = try await mqtt.subscribe(to: "house/living-room/living-shutter/state", qos: .atLeastOnce)
            #expect(try await position.next("the position after the restart").string == "80")
            let asked = try await f.client().send(.text("is the shutter open"))
            #expect(asked.dialog.contains("is 80% open, as far as I know"), "\(asked.dialog)")
            // Assumed: a close runs a full travel and the margin, whatever the position says.
            #expect(try await f.client().send(.text("close the shutter")).status == .done)
            clock.advance(by: .milliseconds(500))  // the dead time after power-on
            _ = try await state.first("closing after the restart") { $0.string == "closing" }
            clock.advance(by: .milliseconds(22_000 + 2_500))
            _ = try await position.first("closed") { $0.string == "0" }
            await mqtt.disconnect()
        }
    }
}
