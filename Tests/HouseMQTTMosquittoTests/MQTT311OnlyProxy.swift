import Foundation
import HouseTesting
import Synchronization

/// A broker that speaks MQTT 3.1.1 only, made of a real one: a TCP proxy on a free loopback port
/// in front of `upstreamPort` that answers a CONNECT of any protocol level but 4 as a 3.1.1-only
/// broker must (CONNACK 1, unacceptable protocol version, then close), and passes a 3.1.1
/// CONNECT and everything after it through unchanged.
///
/// mosquitto cannot be made 3.1.1-only, and HouseBroker is gaining MQTT 5: this keeps the
/// client's fallback test meaningful whatever the brokers speak.
final class MQTT311OnlyProxy: @unchecked Sendable {
    /// The port clients connect to.
    let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let state = Mutex<(sockets: Set<Int32>, stopped: Bool, refused: Int, passed: Int)>(([], false, 0, 0))
    private let threads = DispatchGroup()

    /// CONNECTs refused (not 3.1.1) and passed through so far.
    var counts: (refused: Int, passed: Int) { state.withLock { ($0.refused, $0.passed) } }

    init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        (listener, port) = try listenOnLoopback()
        spawn { self.acceptLoop() }
    }

    /// Closes the listener and every connection, and waits (bounded) for its threads to end.
    func stop() {
        let sockets: Set<Int32> = state.withLock { s in
            s.stopped = true
            defer { s.sockets.removeAll() }
            return s.sockets
        }
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in sockets { shutdown(fd, Int32(SHUT_RDWR)) }
        _ = threads.wait(timeout: .now() + 5)
        close(listener)
        for fd in sockets { close(fd) }
    }

    private func spawn(_ body: @escaping @Sendable () -> Void) {
        threads.enter()
        Thread { [threads] in
            body()
            threads.leave()
        }.start()
    }

    /// Keeps `fd` to be shut down by `stop()`; false (and `fd` closed) when stopping already.
    private func track(_ fd: Int32) -> Bool {
        let kept = state.withLock { s in
            if s.stopped { return false }
            s.sockets.insert(fd)
            return true
        }
        if !kept { close(fd) }
        return kept
    }

    private func forget(_ fd: Int32) {
        let owned = state.withLock { $0.sockets.remove(fd) != nil }
        if owned { close(fd) }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return  // shut down by stop()
            }
            guard track(client) else { return }
            spawn { self.serve(client) }
        }
    }

    private func serve(_ client: Int32) {
        defer { forget(client) }
        guard let connect = Self.readPacket(client), connect.first == 0x10, let level = Self.protocolLevel(connect) else { return }
        guard level == 4 else {
            state.withLock { $0.refused += 1 }
            Self.write(client, [0x20, 0x02, 0x00, 0x01])
            return
        }
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard upstream >= 0, track(upstream) else { return }
        defer { forget(upstream) }
        var address = Self.loopback(port: upstreamPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Foundation.connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected, Self.write(upstream, connect) else { return }
        state.withLock { $0.passed += 1 }
        let done = DispatchSemaphore(value: 0)
        spawn {
            Self.pump(from: client, to: upstream)
            done.signal()
        }
        Self.pump(from: upstream, to: client)
        done.wait()
    }

    /// Copies bytes until either side ends, then shuts both down (which ends the other pump).
    private static func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0, write(destination, Array(buffer[0..<count])) else { break }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
    }

    /// One whole MQTT packet (fixed header included), or nil when the connection ends first.
    private static func readPacket(_ fd: Int32) -> [UInt8]? {
        guard var packet = read(fd, count: 1) else { return nil }
        var remaining = 0
        var multiplier = 1
        for _ in 0..<4 {
            guard let byte = read(fd, count: 1)?.first else { return nil }
            packet.append(byte)
            remaining += Int(byte & 0x7F) * multiplier
            multiplier *= 128
            if byte & 0x80 == 0 {
                guard let body = read(fd, count: remaining) else { return nil }
                return packet + body
            }
        }
        return nil
    }

    /// The protocol level of a CONNECT packet: the byte after the protocol name.
    private static func protocolLevel(_ connect: [UInt8]) -> UInt8? {
        var index = 1
        while index < connect.count, connect[index] & 0x80 != 0 { index += 1 }
        index += 1  // past the remaining length
        guard index + 2 <= connect.count else { return nil }
        let nameLength = Int(connect[index]) << 8 | Int(connect[index + 1])
        let levelIndex = index + 2 + nameLength
        return levelIndex < connect.count ? connect[levelIndex] : nil
    }

    private static func read(_ fd: Int32, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + done, count - done, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            done += n
        }
        return bytes
    }

    /// Writes all of `bytes`; false when the connection is gone (no SIGPIPE).
    @discardableResult
    private static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
