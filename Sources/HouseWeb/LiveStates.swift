import HouseCore
import HouseDaemon
import ServiceLifecycle
import Signals

/// The page's live view: the whole house as a server-sent `state` event at once, then again after
/// every command that changed it (the controller's `changes`), so a browser sees a relay's new
/// state as soon as the bus has carried the command out. Ends when the browser goes (a write
/// fails) or the controller shuts down.
struct LiveStates<C: WallClock> {
    let controller: HouseController<C>
    /// With nothing to say for this long, a comment line finds out whether the browser is still there.
    static var heartbeat: Duration { .seconds(15) }

    func stream(_ write: (String) async throws -> Void) async throws {
        let clock = ContinuousClock()
        try await controller.changes.watch { signal in
            try await withGracefulShutdownHandler {
                var last = ""
                var lastWrite = clock.now
                while !Task.isCancelled && !Task.isShuttingDownGracefully {
                    let json = WebResponses.encode(await controller.overview())
                    if json != last {
                        try await write("event: state\ndata: \(json)\n\n")
                        last = json
                        lastWrite = clock.now
                    } else if clock.now >= lastWrite.advanced(by: Self.heartbeat) {
                        try await write(": alive\n\n")
                        lastWrite = clock.now
                    }
                    await signal.wait(until: lastWrite.advanced(by: Self.heartbeat), on: clock)
                }
            } onGracefulShutdown: {
                signal.signal()
            }
        }
    }
}
