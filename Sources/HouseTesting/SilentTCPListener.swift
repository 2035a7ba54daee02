import Foundation

/// A TCP listener on 127.0.0.1 that never accepts or answers: connections complete in the
/// kernel's backlog and then nothing happens, like a hung broker or a black-holed path. For
/// testing connect timeouts without depending on the network.
public final class SilentTCPListener: Sendable {
    /// The port it listens on.
    public let port: Int
    private let descriptor: Int32

    /// Opens the listener on a free loopback port.
    public init() throws {
        (descriptor, port) = try listenOnLoopback()
    }

    deinit { close(descriptor) }
}

/// A TCP socket listening on 127.0.0.1 on a free port (bound to port 0), for the tests' own
/// servers: its descriptor (close it when done) and the port the kernel chose.
public func listenOnLoopback(backlog: Int32 = 16) throws -> (descriptor: Int32, port: Int) {
    try bindLoopback(listening: backlog)
}

/// A TCP socket bound to a free port on 127.0.0.1 (port 0), listening with `backlog` unless nil
/// (bound only: a connection to it is refused): its descriptor (close it when done) and the port
/// the kernel chose.
public func bindLoopback(listening backlog: Int32?) throws -> (descriptor: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
            bind(fd, pointer, length) == 0 && (backlog.map { listen(fd, $0) == 0 } ?? true)
                && getsockname(fd, pointer, &length) == 0
        }
    }
    guard ok else {
        let code = errno
        close(fd)
        throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

