import Foundation
import HouseCore
import HouseTesting
import Signals
import Synchronization
import Testing

@testable import HouseWeb

/// The live view: the house at once, then again after a command changed it, and an end when the
/// watcher goes.
@Suite struct LiveStatesTests {
    /// Collects the events of a stream and wakes a waiter at each.
    final class Events: Sendable {
        let texts = Mutex<[String]>([])
        let arrived = ChangeFeed()

        func append(_ text: String) {
            texts.withLock { $0.append(text) }
            arrived.changed()
        }

        /// Waits until an event (past the first `after`) satisfies `predicate`.
        func wait(after: Int = 0, for predicate: @escaping @Sendable (String) -> Bool) async {
            await arrived.watch { signal in
                while !texts.withLock({ $0.dropFirst(after).contains(where: predicate) }) && !Task.isCancelled { await signal.wait() }
            }
        }
    }

    static func kitchen(_ state: String) -> String {
        #""id":"kitchen-light","kind":"light","name":"ceiling light","node":"pi-main","state":""# + state + "\""
    }

    static func hall(_ state: String) -> String {
        #""id":"hall-light","kind":"light","name":"light","node":"pi-main","state":""# + state + "\""
    }

    /// Runs `body` with a live view of a fresh controller, once its first state (both lights off)
    /// has gone out; then ends the view and checks that its watcher is gone with it.
    func withLiveView(_ body: @Sendable (ControllerFixture, Events) async throws -> Void) async throws {
        try await withController { fixture in
            let events = Events()
            let live = LiveStates(controller: fixture.controller)
            let stream = Task { try await live.stream { events.append($0) } }
            try await withTimeout(.seconds(20), "the first state") {
                await events.wait { $0.hasPrefix("event: state\ndata: {") && $0.contains(Self.kitchen("OFF")) && $0.contains(Self.hall("OFF")) }
            }
            #expect(fixture.controller.changes.watcherCount == 1)
            try await body(fixture, events)
            stream.cancel()
            _ = await stream.result
            #expect(fixture.controller.changes.watcherCount == 0, "the watcher is gone with its stream")
        }
    }

    @Test func aRelaySwitchedAnywhereReachesTheViewAsOneStateEvent() async throws {
        try await withLiveView { fixture, events in
            // A quiet spell since the last event: the next change goes out at once.
            fixture.clock.advance(by: LiveStates<ManualClock>.burstInterval)
            _ = await fixture.controller.submit(.control(HouseControlIntent(room: "kitchen", action: .on, device: "kitchen-light")), source: .mqtt)
            try await withTimeout(.seconds(20), "the kitchen light on in the view") {
                await events.wait { $0.contains(Self.kitchen("ON")) }
            }
            let count = events.texts.withLock { $0.count }
            // A command that changes nothing the view shows (a query) sends no event.
            fixture.clock.advance(by: LiveStates<ManualClock>.burstInterval)
            _ = await fixture.controller.submit(.query(QueryHouseStatusIntent(queryType: .mode)), source: .mqtt)
            _ = await fixture.controller.submit(.control(HouseControlIntent(room: "hall", action: .on, device: "hall-light")), source: .mqtt)
            try await withTimeout(.seconds(20), "the hall light on in the view") {
                await events.wait { $0.contains(Self.hall("ON")) }
            }
            #expect(events.texts.withLock { $0.count } == count + 1, "the query gave no event of its own")
        }
    }

    /// A burst (changes within `burstInterval` of the last event) waits for the rest of the
    /// interval and goes out as one event with every change in it; the clock is a manual one,
    /// so nothing goes out before it moves.
    @Test func aBurstOfChangesGoesOutAsOneEventAfterTheInterval() async throws {
        try await withLiveView { fixture, events in
            let first = events.texts.withLock { $0.count }
            // Three commands at the instant of the first event: all inside its interval.
            _ = await fixture.controller.submit(.control(HouseControlIntent(room: "kitchen", action: .on, device: "kitchen-light")), source: .mqtt)
            _ = await fixture.controller.submit(.control(HouseControlIntent(room: "hall", action: .on, device: "hall-light")), source: .mqtt)
            _ = await fixture.controller.submit(.control(HouseControlIntent(room: "kitchen", action: .off, device: "kitchen-light")), source: .mqtt)
            #expect(events.texts.withLock { $0.count } == first, "nothing goes out before the interval is over")
            fixture.clock.advance(by: LiveStates<ManualClock>.burstInterval)
            try await withTimeout(.seconds(20), "the burst's state") {
                await events.wait { $0.contains(Self.hall("ON")) }
            }
            let texts = events.texts.withLock { $0 }
            #expect(texts.count == first + 1, "one event for the whole burst")
            #expect(texts.last?.contains(Self.kitchen("OFF")) == true, "the burst's last word on the kitchen light")
            // After a quiet spell, a change goes out at once again.
            fixture.clock.advance(by: LiveStates<ManualClock>.burstInterval)
            _ = await fixture.controller.submit(.control(HouseControlIntent(room: "hall", action: .off, device: "hall-light")), source: .mqtt)
            try await withTimeout(.seconds(20), "the hall light off in the view") {
                await events.wait(after: first + 1) { $0.contains(Self.hall("OFF")) }
            }
        }
    }
}
