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

        /// Waits until an event satisfies `predicate`.
        func wait(for predicate: @escaping @Sendable (String) -> Bool) async {
            await arrived.watch { signal in
                while !texts.withLock({ $0.contains(where: predicate) }) && !Task.isCancelled { await signal.wait() }
            }
        }
    }

    @Test func aRelaySwitchedAnywhereReachesTheViewAsOneStateEvent() async throws {
        try await withController { fixture in
            let events = Events()
            let live = LiveStates(controller: fixture.controller)
            let stream = Task { try await live.stream { events.append($0) } }
            try await withTimeout(.seconds(20), "the first state") {
                await events.wait { $0.hasPrefix("event: state\ndata: {") && $0.contains(#""id":"kitchen-light","kind":"light","name":"ceiling light","node":"pi-main","state":"OFF""#) }
            }
            #expect(fixture.controller.changes.watcherCount == 1)
            _ = await fixture.controller.submit(.control(HouseControlIntent(room: "kitchen", action: .on, device: "kitchen-light")), source: .mqtt)
            try await withTimeout(.seconds(20), "the kitchen light on in the view") {
                await events.wait { $0.contains(#""id":"kitchen-light","kind":"light","name":"ceiling light","node":"pi-main","state":"ON""#) }
            }
            let count = events.texts.withLock { $0.count }
            // A command that changes nothing the view shows (a query) sends no event.
            _ = await fixture.controller.submit(.query(QueryHouseStatusIntent(queryType: .mode)), source: .mqtt)
            _ = await fixture.controller.submit(.control(HouseControlIntent(room: "hall", action: .on, device: "hall-light")), source: .mqtt)
            try await withTimeout(.seconds(20), "the hall light on in the view") {
                await events.wait { $0.contains(#""id":"hall-light","kind":"light","name":"light","node":"pi-main","state":"ON""#) }
            }
            #expect(events.texts.withLock { $0.count } == count + 1, "the query gave no event of its own")
            stream.cancel()
            _ = await stream.result
            #expect(fixture.controller.changes.watcherCount == 0, "the watcher is gone with its stream")
        }
    }
}
