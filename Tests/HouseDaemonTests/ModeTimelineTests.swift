import Foundation
import HouseCore
import HouseTesting
import Testing
@testable import HouseDaemon

/// One mode timeline per room, kept by the house service; a temporary mode's end is a command on
/// the bus (history, events and rules see it) and survives a restart; a routine run planned
/// before a restart, with its random delay drawn, still runs.
@Suite final class ModeTimelineTests {
    let directory = NSTemporaryDirectory() + "housectl-modes-\(UUID().uuidString)"
    deinit { try? FileManager.default.removeItem(atPath: directory) }
    /// The fixture's clock start (2026-11-24 12:00 UTC, a Tuesday).
    let start = Date(timeIntervalSince1970: 1_795_521_600)

    @Test func eachRoomEndsItsTemporaryModeOnItsOwnThroughTheBus() async throws {
        try await withController(routines: true) { f in
            let mqtt = try await f.mqttClient()
            let modes = try await mqtt.subscribe(to: "house/mode/state")
            let events = try await mqtt.subscribe(to: "house/events")
            #expect(try await f.client().send(.intent(.setMode(SetHouseModeIntent(mode: "day")))).status == .done)
            _ = try await modes.first("the house in day mode") { $0.string == "day" }
            // The kitchen in evening for 30 minutes, the hall in night for an hour.
            let kitchen = SetHouseModeIntent(mode: "evening", duration: .seconds(1800), rooms: ["kitchen"])
            let hall = SetHouseModeIntent(mode: "night", duration: .seconds(3600), rooms: ["hall"])
            #expect(try await f.client().send(.intent(.setMode(kitchen))).status == .done)
            #expect(try await f.client().send(.intent(.setMode(hall))).status == .done)
            _ = try await modes.first("the house mixed") { $0.string == "mixed" }
            #expect(f.physicalLevel(of: "kitchen-light") == false, "on (active low)")
            #expect(f.physicalLevel(of: "hall-light") == false, "on (active low)")

            f.clock.advance(by: .seconds(1801))
            _ = try await events.first("the kitchen's evening ended") { $0.string?.contains("mode-reverted") == true }
            #expect(await f.controller.engine.modesByRoom["kitchen"] == "day")
            #expect(await f.controller.engine.modesByRoom["hall"] == "night", "the hall keeps its hour")
            #expect(f.physicalLevel(of: "kitchen-light") == true, "day mode switched the kitchen light off")
            #expect(f.physicalLevel(of: "hall-light") == false, "the hall light stays on")

            f.clock.advance(by: .seconds(1800))
            _ = try await modes.first("the house in day mode again") { $0.string == "day" }
            #expect(f.physicalLevel(of: "hall-light") == true)
            let ended = try f.controller.store.history().filter { $0.summary == "temporary mode ended" }
            #expect(ended.count == 2, "each end is in the history")
            await mqtt.disconnect()
        }
    }

    /// Stopped 10 minutes into a 30-minute evening: after the restart the evening ends when it
    /// was going to, 20 minutes on.
    @Test func aTemporaryModeEndsOnTimeAfterARestart() async throws {
        let start = self.start
        let clock = ManualClock(start: start)
        try await withController(routines: true, stateDirectory: directory, clock: clock, bootID: "boot-a") { f in
            let day = try await f.client().send(.intent(.setMode(SetHouseModeIntent(mode: "day"))))
            #expect(day.status == .done)
            let evening = try await f.client().send(.intent(.setMode(SetHouseModeIntent(mode: "evening", duration: .seconds(1800)))))
            #expect(evening.status == .done)
        }
        clock.advance(by: .seconds(600))
        try await withController(routines: true, stateDirectory: directory, clock: clock, bootID: "boot-a") { f in
            #expect(await f.controller.engine.currentMode == "evening")
            #expect(await f.controller.engine.modeExpiry == WallInstant(start + 1800))
            let mqtt = try await f.mqttClient()
            let modes = try await mqtt.subscribe(to: "house/mode/state")
            clock.advance(by: .seconds(1201))
            _ = try await modes.first("back to day at the planned end") { $0.string == "day" }
            await mqtt.disconnect()
        }
    }

    /// What a controller killed during a routine's random delay leaves: the run planned at
    /// sunset+15m with its delay drawn (200 s), and its last sign of life after the nominal time.
    /// Restarted inside the delay, the run comes at its drawn time and is recorded done.
    @Test func aRoutineRunPlannedBeforeARestartStillRuns() async throws {
        let configuration = try HouseFixtures.exampleConfiguration()
        let scheduler = RoutineScheduler(configuration: configuration)
        let routine = try #require(scheduler.routine(id: "garden-water"))
        var drawn = try #require(scheduler.occurrence(of: routine, on: scheduler.calendar.localDate(of: start)))
        drawn.due = drawn.nominal + 200
        let planned = drawn
        do {
            let store = try StateStore(path: directory + "/housectl.sqlite")
            try store.recordPlannedRuns([planned])
            try store.saveLastActive(planned.nominal + 60)
            try store.saveBootID("boot-a")
            try store.close()
        }
        let clock = ManualClock(start: planned.nominal + 100)
        let logs = LogCapture()
        try await withController(routines: true, stateDirectory: directory, clock: clock, bootID: "boot-a",
                                 logger: logs.logger()) { f in
            let mqtt = try await f.mqttClient()
            let events = try await mqtt.subscribe(to: "house/events")
            let line = try await withTimeout(.seconds(20)) { try await logs.line(containing: "routine garden-water next runs at") }
            #expect(line.contains("\(planned.due)"), "the drawn time, not a new draw: \(line)")
            clock.advance(to: WallInstant(planned.due))
            _ = try await events.first("the garden watered") { $0.string?.contains("garden-pump") == true }
            let record = try f.controller.store.routineRuns().first { $0.key == planned.key }
            #expect(record?.done == true)
            await mqtt.disconnect()
        }
    }
}
