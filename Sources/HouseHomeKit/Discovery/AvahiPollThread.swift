import CAvahi

/// avahi's event loop on a thread of its own (an `AvahiThreadedPoll`). The callbacks of the
/// client and entry groups made on it run on that thread with the loop's lock held; any other
/// thread takes the lock (`withLock`) before it touches them. Freed (its thread stopped first)
/// when the last reference goes.
final class AvahiPollThread: @unchecked Sendable {
    let pointer: OpaquePointer

    init() throws(HomeKitError) {
        guard let pointer = avahi_threaded_poll_new() else { throw .mdns("avahi_threaded_poll_new: out of memory") }
        self.pointer = pointer
    }

    /// The event loop as avahi's client takes it.
    var api: UnsafePointer<AvahiPoll> { avahi_threaded_poll_get(pointer) }

    /// Starts the loop's thread.
    func start() throws(HomeKitError) {
        let result = avahi_threaded_poll_start(pointer)
        guard result >= 0 else { throw .avahi("avahi_threaded_poll_start", result) }
    }

    /// Runs `body` with the loop's lock held. Never from one of the loop's callbacks: they hold it already.
    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        avahi_threaded_poll_lock(pointer)
        defer { avahi_threaded_poll_unlock(pointer) }
        return try body()
    }

    /// Stops the loop and waits for its thread to end (not from one of its callbacks); idempotent.
    func stop() {
        avahi_threaded_poll_stop(pointer)
    }

    deinit {
        // Stops the thread if it still runs.
        avahi_threaded_poll_free(pointer)
    }
}
