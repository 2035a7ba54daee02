import Foundation
import HouseCore
import HouseTesting
import Synchronization
import Testing

/// Energy across restarts at the service: the ledger rebuilt from recorded edges, what was on
/// counted up to when the controller last ran, and new edges of metered devices reported.
@Suite struct EnergyRestoreTests {
    @Test func theLedgerIsRebuiltAndWhatWasOnEndsWhenTheControllerLastRan() async throws {
        let h = try HouseHarness()
        let t0 = WallInstant(HouseHarness.defaultStart).advanced(by: .seconds(-3 * 3600))  // 07:00 UTC
        let edges = [
            EnergyEdge(device: "living-ceiling-light", on: true, at: t0),                              // 60 W
            EnergyEdge(device: "living-ceiling-light", on: false, at: t0.advanced(by: .seconds(3600))), // 1 h
            EnergyEdge(device: "hall-light", on: true, at: t0.advanced(by: .seconds(3600))),           // 20 W, left on
        ]
        // The controller last ran at 09:00; it is 10:00 now.
        await h.engine.restoreEnergy(edges, end: t0.advanced(by: .seconds(2 * 3600)))
        let kWh = await h.engine.energyUsed(in: .today)
        #expect(abs(kWh - (0.060 + 0.020)) < 1e-9, "\(kWh)")
        let byDevice = await h.engine.energyTodayByDevice()
        #expect(abs((byDevice.first { $0.device.id == "hall-light" }?.kWh ?? 0) - 0.020) < 1e-9)
    }

    @Test func onlyMeteredDevicesEdgesAreReportedOncePerChange() async throws {
        let h = try HouseHarness()
        await h.engine.noteState("kitchen-light", .on)    // 50 W
        await h.engine.noteState("kitchen-light", .on)    // no change
        await h.engine.noteState("garage-door", .on)  // no watts: not metered
        h.clock.advance(by: .seconds(60))
        await h.engine.noteState("kitchen-light", .off)
        let start = WallInstant(HouseHarness.defaultStart)
        let seen = await h.engine.takeEffects().records.compactMap { record -> EnergyEdge? in
            if case .energyEdge(let edge) = record { edge } else { nil }
        }
        #expect(seen == [EnergyEdge(device: "kitchen-light", on: true, at: start),
                                         EnergyEdge(device: "kitchen-light", on: false, at: start.advanced(by: .seconds(60)))])
    }
}
