import Foundation
import GRDB
import Testing
import HouseCore
import HouseTesting
@testable import HouseDaemon

@Suite struct BackgroundPaceTests {
    /// The work gives its CPU up once a slice of it has passed since the start or the last yield,
    /// and not between.
    @Test func yieldsOncePerSliceOfWork() {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000))
        var yields = 0
        var pace = BackgroundPace(clock: clock) { yields += 1 }
        pace.step()
        #expect(yields == 0, "no time has passed")
        clock.advance(by: .microseconds(30))
        pace.step()
        #expect(yields == 0, "30 us is less than a slice")
        clock.advance(by: .microseconds(20))
        pace.step()
        #expect(yields == 1, "a slice since the start")
        pace.step()
        #expect(yields == 1, "the slice starts again at the yield")
        clock.advance(by: .microseconds(49))
        pace.step()
        #expect(yields == 1)
        clock.advance(by: .milliseconds(5))
        pace.step()
        pace.step()
        #expect(yields == 2, "a long step is one yield, not one per slice it took")
    }

    /// A grouped commit calls the pace between its writes, and within a write of many rows (a
    /// burst's energy edges, a day's planned routine runs) after each statement.
    @Test func aCommitStepsBetweenItsWrites() throws {
        let directory = NSTemporaryDirectory() + "housectl-pace-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try StateStore(path: directory + "/state.sqlite", grouped: true)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        for i in 0..<10 {
            try store.appendHistory(.init(at: t0 + Double(i), source: "mqtt", kind: "control", summary: "x\(i)", outcome: "done", dialog: ""))
            try store.saveRelayState(device: i % 2 == 0 ? "fan" : "lamp", state: .on, at: t0 + Double(i))
        }
        for i in 0..<StateStore.energyEdgeBatch {
            store.bufferEnergyEdge(EnergyEdge(device: "fan", on: i % 2 == 0, at: WallInstant(t0 + Double(i))))
        }
        let day = LocalDate(daysSinceEpoch: 20_000)
        try store.recordPlannedRuns((0..<3).map {
            ScheduledRun(routineID: "morning", day: day, nominal: t0 + Double($0) * 60, due: t0 + Double($0) * 60, window: nil, reason: .scheduled)
        })
        var steps = 0
        try store.flushPending { steps += 1 }
        // Ten history rows (fewer than a multi-row statement holds: one statement each), one row
        // per relay, the energy edges 16 rows a statement and a step after that write, the
        // planned runs a step per row and one after the write.
        #expect(steps == 10 + 2 + StateStore.energyEdgeBatch / Database.rowsPerStatement + 1 + 3 + 1)
        #expect(store.statistics == .init(commits: 1, writes: 14), "\(store.statistics)")
        #expect(try store.energyEdges(since: t0).count == StateStore.energyEdgeBatch)
        try store.close()
    }
}
