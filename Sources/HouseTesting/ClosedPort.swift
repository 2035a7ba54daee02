import Foundation

/// A TCP port on 127.0.0.1 that is bound but not listening: a connection to it is refused, and
/// while it is held no other socket (a broker another test starts on port 0, say) can take it.
/// A port found free and closed again gives no such guarantee: tests run in parallel.
public final class ClosedPort: @unchecked Sendable {
    /// The port number.
    public let port: Int
    private let lock = NSLock()
    private var fd: Int32

    public init() throws {
        do {
            (fd, port) = try bindLoopback(listening: nil)
        } catch {
            throw MosquittoBroker.StartFailed(reason: "bind() to a free loopback port failed: \(error)", log: "")
        }
    }

    /// Frees the port (for a broker about to be started on it). Idempotent.
    public func release() {
        lock.lock()
        defer { lock.unlock() }
        if fd >= 0 {
            close(fd)
            fd = -1
        }
    }

    deinit { release() }
}
