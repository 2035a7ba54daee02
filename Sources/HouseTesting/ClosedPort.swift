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
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw MosquittoBroker.StartFailed(reason: "socket() failed: errno \(errno)", log: "") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            let reason = "bind() to a free loopback port failed: errno \(errno)"
            close(fd)
            throw MosquittoBroker.StartFailed(reason: reason, log: "")
        }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
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
