import Signals
import Testing

/// The two ways a task waits in housectl: a value set once (`OneShot`) and a repeating wake-up
/// flag (`WakeSignal`). Every wait here ends by an event or by cancellation, never by time.
@Suite("Signals", .timeLimit(.minutes(1)))
struct SignalsTests {
    @Test func aOneShotWakesEveryWaiterWithTheFirstValue() async {
        let shot = OneShot<Int>()
        async let a = shot.wait()
        async let b = shot.wait()
        shot.fulfill(1)
        shot.fulfill(2)
        #expect(await a == 1)
        #expect(await b == 1)
        #expect(await shot.wait() == 1)
        #expect(shot.isFulfilled)
    }

    @Test func waitingOnAOneShotEndsWithNilWhenCancelled() async {
        let shot = OneShot<Int>()
        let waiter = Task { await shot.wait() }
        waiter.cancel()
        #expect(await waiter.value == nil)
    }

    @Test func aSignalBeforeTheWaitIsNotLostAndSeveralWakeOnce() async {
        let wake = WakeSignal()
        wake.signal()
        wake.signal()
        await wake.wait()  // returns at once: the signals came before
        // The flag is consumed: the next wait needs a new signal.
        let next = Task { await wake.wait(); return true }
        wake.signal()
        #expect(await next.value)
    }

    @Test func aWaitEndsWhenItsTaskIsCancelled() async {
        let wake = WakeSignal()
        let waiter = Task { await wake.wait(); return Task.isCancelled }
        waiter.cancel()
        #expect(await waiter.value)
    }
}
