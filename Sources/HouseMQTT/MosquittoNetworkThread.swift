import Foundation
import Synchronization
internal import CMosquitto

/// libmosquitto's network loop on a thread of our own, with libmosquitto in "external loop"
/// mode (`mosquitto_threaded_set`), instead of `mosquitto_loop_start`'s thread.
///
/// Why not libmosquitto's own thread: in 2.0.11 every packet queued (a publish, its PUBACK, a
/// subscribe) writes one byte to a socket pair that wakes that thread's `pselect`, and the thread
/// reads the pair back one byte per `pselect` round, so N packets cost N rounds; packets queued
/// inside a message callback go out only on the round after. Here the thread polls the socket and
/// an eventfd of its own; it writes whatever is queued right after each read, and a packet queued
/// on another thread wakes it once however many follow before it runs (`packetQueued`).
/// libmosquitto still writes its byte to the socket pair, which nobody reads: once the pair is
/// full those writes fail at once (it is non-blocking) and cost nothing more.
///
/// What libmosquitto's callbacks report on this thread is delivered once its call returns
/// (`received`), in order, with none of its locks held (its message callback holds its callback
/// lock): a message handler may then have libmosquitto write, and a command handled here writes
/// its state as soon as it is published (`writeQueued`), before the rest of the command (its
/// record, its event) runs, the way an echo client's state leaves.
///
/// The thread ends when the connection does (libmosquitto has reported it lost through the
/// disconnect callback, or a TLS handshake failed, which its log line reports) or when `stop` is
/// called; reconnecting is the client's job, as before.
///
/// One owning class for the eventfd; `start` and `stop` run on the client's `BlockingWorker`.
final class MosquittoNetworkThread: @unchecked Sendable {
    private let raw: OpaquePointer
    /// Readable while a wake-up is pending.
    private let wakeDescriptor: Int32
    /// A wake-up written and not yet seen by the thread: later packets need not write another.
    private let wakePending = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    /// The running thread's `pthread_self()`, 0 when none: packets it queues itself (in a
    /// handler) are written without a wake-up (`writeQueued`, or after the handler).
    private let loopThread = Atomic<UInt>(0)
    /// Signalled when the thread has left its loop. Only touched on the worker thread.
    private var finished: DispatchSemaphore?
    /// Where the events of libmosquitto's callbacks go (the handle's client). Set once, before
    /// the first `start`.
    var deliver: (MosquittoEvent) -> Void = { _ in }
    /// Loop thread only: inside one of libmosquitto's calls, whose callbacks' events are held
    /// (`held`) and delivered once it returns, in order, with none of its locks taken.
    private var insideLibrary = false
    private var held: [MosquittoEvent] = []
    private var delivering = false

    /// The poll timeout: libmosquitto's keepalive (PINGREQ, PINGRESP overdue) is checked at
    /// least this often. Its own loop uses whole seconds too.
    private static let pollMilliseconds: Int32 = 1000

    init(_ raw: OpaquePointer) throws(MQTTError) {
        self.raw = raw
        let descriptor = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard descriptor >= 0 else {
            let e = errno
            throw .operationFailed(call: "eventfd", reason: MosquittoHandle.errnoText(e))
        }
        wakeDescriptor = descriptor
        let rc = mosquitto_threaded_set(raw, true)
        guard rc == MosquittoHandle.success else {
            close(descriptor)
            throw .operationFailed(call: "mosquitto_threaded_set", reason: MosquittoHandle.describe(rc))
        }
    }

    deinit {
        close(wakeDescriptor)
    }

    /// Whether the thread is running (worker).
    var isRunning: Bool { finished != nil }

    /// Worker: starts the thread, after a connect has been started.
    func start() {
        stopping.store(false, ordering: .releasing)
        wakePending.store(false, ordering: .releasing)
        let done = DispatchSemaphore(value: 0)
        finished = done
        let thread = Thread { [self] in
            run()
            done.signal()
        }
        thread.start()
    }

    /// Worker: asks the thread to leave its loop and waits until it has. What the socket says
    /// first (a closed connection: the disconnect callback) is still handled.
    func stop() {
        guard let done = finished else { return }
        stopping.store(true, ordering: .releasing)
        wake()
        done.wait()
        finished = nil
    }

    /// Any thread, after a packet was queued: wakes the thread to write it, unless the thread
    /// queued it itself (it writes it in `writeQueued` or after the handler), has nothing to
    /// write (it was written already), or a wake-up is already pending.
    func packetQueued() {
        guard loopThread.load(ordering: .relaxed) != UInt(pthread_self()) else { return }
        guard mosquitto_want_write(raw) else { return }
        wake()
    }

    /// Any thread, holding none of the client's locks: on the loop thread, outside libmosquitto
    /// (a message handler that has just published), writes what is queued now instead of after
    /// the handler, so that a command's state leaves before the rest of the command runs.
    /// Elsewhere nothing: `packetQueued` woke the thread.
    func writeQueued() {
        guard loopThread.load(ordering: .relaxed) == UInt(pthread_self()), !insideLibrary, mosquitto_want_write(raw) else { return }
        // A failure is the connection's loss, which the disconnect callback reports; the loop
        // then ends at its next turn.
        _ = library { mosquitto_loop_write(raw, 1) }
    }

    /// Loop thread or libmosquitto's callbacks: `event` goes to `deliver`, at once unless the
    /// loop thread is inside a call of libmosquitto (then once it returns).
    func received(_ event: MosquittoEvent) {
        guard loopThread.load(ordering: .relaxed) == UInt(pthread_self()), insideLibrary else { return deliver(event) }
        held.append(event)
    }

    /// Loop thread: runs one of libmosquitto's calls, then delivers what its callbacks reported.
    private func library(_ call: () -> Int32) -> Int32 {
        insideLibrary = true
        let rc = call()
        insideLibrary = false
        // A call made while delivering (a handler's publish written at once) leaves its events
        // to the delivery under way, which takes them in order.
        guard !delivering else { return rc }
        delivering = true
        var next = 0
        while next < held.count {
            let event = held[next]
            next += 1
            deliver(event)
        }
        held.removeAll(keepingCapacity: held.count <= 64)
        delivering = false
        return rc
    }

    private func wake() {
        guard !wakePending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
    }

    private func run() {
        Thread.current.name = "mosquitto loop"  // shown by top, perf and BENCH_THREADS
        loopThread.store(UInt(pthread_self()), ordering: .relaxed)
        defer { loopThread.store(0, ordering: .relaxed) }
        let success = MosquittoHandle.success
        let readable = Int16(POLLIN) | Int16(POLLERR) | Int16(POLLHUP)
        var descriptors = [pollfd](repeating: pollfd(), count: 2)
        while true {
            let socket = mosquitto_socket(raw)
            guard socket >= 0 else { return }
            // Asked to stop: one last pass without waiting, so that a connection the worker has
            // just shut down is still reported (the disconnect callback), as libmosquitto's own
            // thread did before `mosquitto_loop_stop` returned.
            let last = stopping.load(ordering: .acquiring)
            let writing = mosquitto_want_write(raw)
            descriptors[0] = pollfd(fd: socket, events: Int16(POLLIN) | (writing ? Int16(POLLOUT) : 0), revents: 0)
            descriptors[1] = pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)
            if poll(&descriptors, 2, last ? 0 : Self.pollMilliseconds) < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptors[1].revents != 0 {
                var count: UInt64 = 0
                _ = read(wakeDescriptor, &count, MemoryLayout<UInt64>.size)
                // Reads the flag each waker set, so their packets are seen below.
                _ = wakePending.exchange(false, ordering: .acquiringAndReleasing)
            }
            let events = descriptors[0].revents
            var rc = success
            if events & readable != 0 {
                rc = library { mosquitto_loop_read(raw, 1) }
            }
            if rc == success, mosquitto_want_write(raw) {
                rc = library { mosquitto_loop_write(raw, 1) }
                // A TLS handshake that waits to write goes on only through loop_read (as
                // libmosquitto's own loop does on a writable socket).
                if rc == success, events & Int16(POLLOUT) != 0, events & readable == 0, mosquitto_want_write(raw) {
                    rc = library { mosquitto_loop_read(raw, 1) }
                }
            }
            if rc == success {
                rc = library { mosquitto_loop_misc(raw) }
            }
            // Lost (reported through the disconnect callback), refused or failed: the client
            // reconnects with a new thread.
            if rc != success || last { return }
        }
    }
}
