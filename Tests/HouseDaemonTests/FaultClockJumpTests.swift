import Foundation
import HouseCore
import HouseTesting
import Testing
@testable import HouseDaemon

/// NTP corrections (the wall clock jumping forward and back) neither double nor skip routines
/// beyond their declared catch-up policy.
@Suite(.serialized) struct FaultClockJumpTests {
    /// Two weekday routines: `kitchen` at 06:30 with `catch_up: latest`, `hall` at 07:00 with
    /// `catch_up: none`, both relevant 06:00–09:00, each switching a relay without timers.
    func configuration() throws -> HouseConfiguration {
        var config = try HouseFixtures.exampleConfiguration()
        guard var kitchen = config.routines.first(where: { $0.id == "good-morning" }) else {
            throw TimeoutError(what: "the good-morning routine in the example house", after: .zero)
        }
        kitchen.id = "kitchen-routine"
        kitchen.shortcut = "Kitchen routine"
        kitchen.catchUp = .latest
        kitchen.jitter = nil
        kitchen.intent = .control(room: "kitchen", device: "kitchen-light", action: .on)
        var hall = kitchen
        hall.id = "hall-routine"
        hall.shortcut = "Hall routine"
        hall.runAt = TimeEdge("07:00")
        hall.catchUp = .none
        hall.intent = .control(room: "hall", device: "hall-light", action: .on)
        config.routines = [kitchen, hall]
        config.rules = []
        return config
    }

    /// Tuesday 24 November 2026 at `hh:mm` UTC (London is on GMT then), plus `days`.
    func at(_ hh: Int, _ mm: Int, days: Int = 0) -> WallInstant {
        WallInstant(Date(timeIntervalSince1970: 1_795_478_400 + Double(days * 86400 + hh * 3600 + mm * 60)))
    }

    func runs(_ f: ControllerFixture, _ device: String) throws -> Int {
        try f.controller.store.history().filter { $0.source == "routine" && $0.summary.contains(device) }.count
    }

    @Test func clockJumpsForwardAndBackDoNotDoubleOrSkipRoutinesBeyondTheirPolicy() async throws {
        try await withController(configuration: try configuration(), start: at(5, 50).date, routines: true) { f in
            // The runner asleep until its first run: the quiet count of sleepers on the clock.
            try await withTimeout(.seconds(20), "the routine runner asleep") { await f.clock.waitForSleepers(1) }
            let quiet = f.clock.sleeperCount
            /// Moves the clock, then waits until the runner has handled what became due and sleeps again.
            func settle(_ move: () -> Void) async throws {
                move()
                try await withTimeout(.seconds(20), "the routine runner asleep again") { await f.clock.waitForSleepers(quiet) }
            }

            // On time.
            try await settle { f.clock.advance(to: at(6, 30).advanced(by: .seconds(20))) }
            #expect(try runs(f, "kitchen-light") == 1)
            #expect(f.physicalLevel(of: "kitchen-light") == false)  // on (active low)

            // NTP pulls the clock back over the run: no second run when the time comes again.
            try await settle { f.clock.jump(to: at(6, 20)) }
            try await settle { f.clock.advance(to: at(6, 45)) }
            #expect(try runs(f, "kitchen-light") == 1)

            try await settle { f.clock.advance(to: at(7, 0).advanced(by: .seconds(10))) }
            #expect(try runs(f, "hall-light") == 1)
            try await settle { f.clock.jump(to: at(6, 58)) }
            try await settle { f.clock.advance(to: at(7, 5)) }
            #expect(try runs(f, "hall-light") == 1)

            // NTP pushes the clock forward two days: `latest` runs once, `none` not at all.
            try await settle { f.clock.jump(to: at(7, 30, days: 2)) }
            #expect(try runs(f, "kitchen-light") == 2)
            #expect(try runs(f, "hall-light") == 1)

            // And the next day runs normally again.
            try await settle { f.clock.advance(to: at(7, 0, days: 3).advanced(by: .seconds(30))) }
            #expect(try runs(f, "kitchen-light") == 3)
            #expect(try runs(f, "hall-light") == 2)
        }
    }
}
