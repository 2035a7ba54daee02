import Foundation
import HouseCore
import HouseTesting
import Testing

/// The engine's timers come back as commands: it says when it next needs a tick, and a tick (or
/// any command) carries out what is due by then.
@Suite struct EngineTimerTests {
    /// A temporary mode ends when the clock gets there, once: the room goes back to its mode
    /// before, recorded and published; before that nothing is due but the minute's checks.
    @Test func aTemporaryModeEndsAtItsTimeOnTheTick() async throws {
        let h = try HouseHarness()
        let evening = await h.engine.process(.setMode(SetHouseModeIntent(mode: "evening")), source: .cli)
        #expect(evening.status == .done)
        let movie = await h.engine.process(.setMode(SetHouseModeIntent(mode: "movie", duration: .seconds(90 * 60))), source: .cli)
        #expect(movie.status == .done)
        let ends = h.clock.now.advanced(by: .seconds(90 * 60))
        #expect(await h.engine.modeExpiry == ends)
        #expect(await h.engine.modesByRoom["living-room"] == "movie")
        _ = await h.engine.takeEffects()

        h.clock.advance(to: ends.advanced(by: .seconds(-60)))
        let early = await h.engine.perform(.tick)
        #expect(early.effects.records.allSatisfy { if case .history = $0 { false } else { true } }, "nothing ended a minute early")
        #expect(await h.engine.modesByRoom["living-room"] == "movie")
        #expect(early.effects.wake == ends, "the next tick is the mode's end")

        h.clock.advance(to: ends.advanced(by: .seconds(1)))
        let tick = await h.engine.perform(.tick)
        #expect(await h.engine.modesByRoom["living-room"] == "evening")
        #expect(tick.effects.messages.contains { $0.topic == "house/events" && $0.string.contains("mode-reverted") })
        #expect(tick.effects.messages.contains { $0.topic == "house/mode/state" && $0.string == "evening" })
        #expect(tick.effects.records.contains { if case .history(let r) = $0 { r.summary == "temporary mode ended" } else { false } })
        #expect(await h.engine.modeExpiry == nil)
        // A mode set for good wakes nothing before the minute's checks.
        #expect(tick.effects.wake.map { $0 > ends.advanced(by: .seconds(1)) && $0 <= ends.advanced(by: .seconds(61)) } == true)
        let again = await h.engine.perform(.tick)
        #expect(!again.effects.messages.contains { $0.topic == "house/events" }, "a mode ends once")
    }

    /// A command that comes after a mode's end finds it ended, whether or not the tick came first.
    @Test func aCommandAfterTheEndFindsTheModeEnded() async throws {
        let h = try HouseHarness()
        _ = await h.engine.process(.setMode(SetHouseModeIntent(mode: "movie", duration: .seconds(60))), source: .cli)
        h.clock.advance(by: .seconds(61))
        let query = await h.engine.perform(.intent(.query(QueryHouseStatusIntent(queryType: .mode)), source: .cli, answers: .none, requestID: nil))
        #expect(await h.engine.modesByRoom["living-room"] == nil)
        #expect(query.reply.dialog.contains("no mode") || !query.reply.dialog.contains("movie"), "\(query.reply.dialog)")
    }
}

/// Only the node that coordinates ends temporary modes: another node's timelines may be stale
/// (it hears no mode command while it does not coordinate), and its revert would switch relays
/// against the coordinator's.
@Suite struct EngineTimerCoordinationTests {
    @Test func aNodeThatDoesNotCoordinateEndsNoModeAndWaitsForNone() async throws {
        let h = try HouseHarness()
        _ = await h.engine.process(.setMode(SetHouseModeIntent(mode: "movie", duration: .seconds(60))), source: .cli)
        let ends = h.clock.now.advanced(by: .seconds(60))
        h.clock.advance(by: .seconds(61))
        let standby = await h.engine.perform(.tick, acting: false)
        #expect(await h.engine.modesByRoom["living-room"] == "movie", "not this node's to end")
        #expect(!standby.effects.messages.contains { $0.topic == "house/events" })
        #expect(standby.effects.wake.map { $0 > h.clock.now } == true, "no wake in the past: the timers would tick on and on")
        // Coordinating: the mode that ran out ends at once.
        let acting = await h.engine.perform(.tick, acting: true)
        #expect(await h.engine.modesByRoom["living-room"] == nil)
        #expect(acting.effects.messages.contains { $0.topic == "house/events" && $0.string.contains("mode-reverted") })
        #expect(ends < h.clock.now)
    }

    /// A node that starts coordinating publishes the house's state in that very command, however
    /// the coordination's own flag reads at that moment.
    @Test func coordinationStartedPublishesTheHouseState() async throws {
        let h = try HouseHarness()
        let started = await h.engine.perform(.coordinationStarted(term: 2001, modes: nil), acting: false)
        #expect(started.effects.messages.contains { $0.topic == "house/mode/state" })
        #expect(started.effects.messages.contains { $0.topic == "house/mode/timeline" })
    }

    /// Only the first node records energy edges (it keeps the house's energy).
    @Test func onlyThePrimaryNodeRecordsEnergyEdges() async throws {
        let other = try HouseHarness(node: "pi-garage")
        await other.engine.noteState("garage-light", .on)
        let records = await other.engine.takeEffects().records
        #expect(!records.contains { if case .energyEdge = $0 { true } else { false } })
        let primary = try HouseHarness(node: "pi-main")
        await primary.engine.noteState("kitchen-light", .on)
        #expect(await primary.engine.takeEffects().records.contains { if case .energyEdge = $0 { true } else { false } })
    }
}
