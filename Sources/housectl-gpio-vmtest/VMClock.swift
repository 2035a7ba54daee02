import Foundation
import HouseCore

/// The virtual time of the checks: it moves only by `advance(to:)`, and the checks fire the relay
/// bank's timers themselves (`RelayBank.fireDueTimers(at:events:)` at its `now`), so a whole
/// pulse takes no real time.
///
/// Not HouseTesting's `ManualClock`: that target brings the daemon, MQTT and SQLite, which the
/// statically linked program in the VM's initramfs should not carry. Nothing here sleeps on this
/// clock; should something do so, it waits the virtual distance in real time.
final class VMClock: WallClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: WallInstant

    init(now: WallInstant) { self.current = now }

    var now: WallInstant { lock.withLock { current } }
    var minimumResolution: Duration { .zero }

    /// Moves the clock forward to `instant` (never backwards).
    func advance(to instant: WallInstant) {
        lock.withLock { if instant > current { current = instant } }
    }

    func sleep(until deadline: WallInstant, tolerance: Duration? = nil) async throws {
        try await ContinuousClock().sleep(for: max(now.duration(to: deadline), .zero), tolerance: tolerance)
    }
}
