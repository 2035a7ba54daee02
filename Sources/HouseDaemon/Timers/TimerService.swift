import HouseCore
import ServiceLifecycle
import Signals
import Synchronization

/// The one scheduler of the engine's timers (a relay's pulse end or max-on, a mode's end, an
/// opener's deadline, the minute's checks): it sleeps on the house's clock until the time the
/// engine last said (`Effects.wake`, set by the bus's consumer after every command) and puts a
/// `.tick` on the bus, which carries out what is due in turn with the commands.
struct TimerService: Service {
    let schedule: TimerSchedule
    let bus: CommandBus
    let clock: any WallClock

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let at = schedule.next
                await schedule.changed.wait(until: at, on: clock)
                // Handed to the bus once: the tick's command sets the next time.
                if let at, clock.now >= at, schedule.take(at) { bus.note(.tick) }
            }
        }
    }
}

/// When the engine next needs a tick: written by the bus's consumer, read by `TimerService`.
final class TimerSchedule: Sendable {
    private let time = Mutex<WallInstant?>(nil)
    /// Signalled when the time moves earlier (a later one is found when the earlier one passes).
    let changed = WakeSignal()

    /// The time last set; nil: no timer.
    var next: WallInstant? { time.withLock { $0 } }

    /// Sets the time of the next tick (nil: none).
    func set(_ next: WallInstant?) {
        let earlier = time.withLock { current -> Bool in
            defer { current = next }
            guard let next else { return false }
            return current.map { next < $0 } ?? true
        }
        if earlier { changed.signal() }
    }

    /// Clears `at` when it is still the time set (true: the tick is the caller's to send).
    func take(_ at: WallInstant) -> Bool {
        time.withLock { current in
            guard current == at else { return false }
            current = nil
            return true
        }
    }
}
