import HouseCore
import HouseDaemon
import ServiceLifecycle
import Signals

/// The page's live view: the whole house as a server-sent `state` event at once, then again after
/// every command that changed it (the controller's `changes`), so a browser sees a relay's new
/// state as soon as the bus has carried the command out. Changes closer together than
/// `burstInterval` (a flood of commands, a routine switching a floor) go out together: one event
/// per interval with everything in it, not one per command. Ends when the browser goes (a write
/// fails) or the controller shuts down.
struct LiveStates<C: WallClock> {
    let controller: HouseController<C>
    /// With nothing to say for this long, a comment line finds out whether the browser is still there.
    static var heartbeat: Duration { .seconds(15) }
    /// The shortest time between two `state` events. A change after a quiet spell goes out at
    /// once; one within this of the last event waits for the rest of the interval and goes out
    /// with whatever else changed meanwhile: 50 events a second is more than a page draws, and
    /// far inside the 200 ms a change may take to reach it.
    static var burstInterval: Duration { .milliseconds(20) }

    func stream(_ write: (String) async throws -> Void) async throws {
        // The controller's clock (a test's manual one), the kind that never jumps.
        let clock = controller.clock.monotonic
        let stopping = WakeSignal()
        try await controller.changes.watch { signal in
            try await withGracefulShutdownHandler {
                var last = ""
                var lastWrite = clock.now
                var lastState: WallInstant? = nil
                while !Task.isCancelled && !Task.isShuttingDownGracefully {
                    if let lastState, clock.now < lastState.advanced(by: Self.burstInterval) {
                        await stopping.wait(until: lastState.advanced(by: Self.burstInterval), on: clock)
                        if Task.isCancelled || Task.isShuttingDownGracefully { break }
                    }
                    // The interval runs from the build: what changes after it waits for the next.
                    let built = clock.now
                    let json = WebResponses.encode(await controller.overview())
                    if json != last {
                        try await write("event: state\ndata: \(json)\n\n")
                        last = json
                        lastWrite = clock.now
                        lastState = built
                    } else if clock.now >= lastWrite.advanced(by: Self.heartbeat) {
                        try await write(": alive\n\n")
                        lastWrite = clock.now
                    }
                    await signal.wait(until: lastWrite.advanced(by: Self.heartbeat), on: clock)
                }
            } onGracefulShutdown: {
                stopping.signal()
                signal.signal()
            }
        }
    }
}
