import Foundation
import HouseDaemon
import HouseTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("SystemdNotifier")
struct SystemdNotifierTests {
    @Test("outside systemd every call is a no-op")
    func noSocket() {
        let notifier = SystemdNotifier(environment: [:])
        #expect(!notifier.isEnabled)
        #expect(!notifier.ready())
        #expect(!notifier.status("hello"))
        #expect(!notifier.stopping())
        #expect(!notifier.watchdog())
        #expect(notifier.watchdogTimeout == nil)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": ""]).isEnabled == false)
    }

    @Test("ready, status and stopping arrive as datagrams on a socket path")
    func pathSocket() throws {
        let receiver = try DatagramReceiver(abstract: false)
        defer { receiver.close() }
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.name])
        #expect(notifier.isEnabled)
        #expect(notifier.ready())
        #expect(try receiver.receive() == "READY=1")
        #expect(notifier.status("relays: 4\nbroker: connected"))
        #expect(try receiver.receive() == "STATUS=relays: 4 broker: connected")
        #expect(notifier.stopping())
        #expect(try receiver.receive() == "STOPPING=1")
    }

    @Test("an @name socket is in the abstract namespace")
    func abstractSocket() throws {
        let receiver = try DatagramReceiver(abstract: true)
        defer { receiver.close() }
        #expect(receiver.name.hasPrefix("@"))
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.name])
        #expect(notifier.ready())
        #expect(try receiver.receive() == "READY=1")
    }

    @Test("an unusable socket path fails without crashing")
    func badPaths() {
        #expect(!SystemdNotifier(environment: ["NOTIFY_SOCKET": "relative/notify"]).ready())
        #expect(!SystemdNotifier(environment: ["NOTIFY_SOCKET": "@"]).ready())
        let long = "/tmp/" + String(repeating: "x", count: 200)
        #expect(!SystemdNotifier(environment: ["NOTIFY_SOCKET": long]).ready())
        let missing = "/tmp/no-such-\(UUID().uuidString)"
        #expect(!SystemdNotifier(environment: ["NOTIFY_SOCKET": missing]).ready())
    }

    @Test("watchdog interval from WATCHDOG_USEC and WATCHDOG_PID")
    func watchdogEnvironment() {
        let mine = SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000"], pid: 42)
        #expect(mine.watchdogTimeout == .seconds(30))
        #expect(mine.watchdogPingInterval == .seconds(15))
        let samePID = SystemdNotifier(environment: ["WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "42"], pid: 42)
        #expect(samePID.watchdogTimeout == .seconds(2))
        let otherPID = SystemdNotifier(environment: ["WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "43"], pid: 42)
        #expect(otherPID.watchdogTimeout == nil)
        for bad in ["", "0", "-5", "abc", "99999999999999999999999"] {
            #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": bad]).watchdogTimeout == nil, "\(bad)")
        }
    }

    @Test("watchdog() sends WATCHDOG=1 only when a watchdog is configured")
    func watchdogPing() throws {
        let receiver = try DatagramReceiver(abstract: false)
        defer { receiver.close() }
        let off = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.name])
        #expect(!off.watchdog())
        #expect(try receiver.receiveNothing())
        let on = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.name, "WATCHDOG_USEC": "1000000"])
        #expect(on.watchdog())
        #expect(try receiver.receive() == "WATCHDOG=1")
    }

    @Test("feedWatchdog pings every half interval of the injected clock until cancelled")
    func feedWatchdog() async throws {
        let receiver = try DatagramReceiver(abstract: false)
        defer { receiver.close() }
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.name, "WATCHDOG_USEC": "20000000"])
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_700_000_000))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await notifier.feedWatchdog(clock: clock) }
            await clock.waitForSleepers(1)
            #expect(try await receiver.nextDatagram() == "WATCHDOG=1")
            clock.advance(by: .seconds(9))
            #expect(try receiver.receiveNothing())
            clock.advance(by: .seconds(1))
            #expect(try await receiver.nextDatagram() == "WATCHDOG=1")
            group.cancelAll()
            try await group.waitForAll()
        }
    }

    @Test("feedWatchdog returns at once without a watchdog")
    func feedWithoutWatchdog() async {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_700_000_000))
        await SystemdNotifier(environment: ["NOTIFY_SOCKET": "/run/none"]).feedWatchdog(clock: clock)
        #expect(clock.sleeperCount == 0)
    }
}

/// A bound unix datagram socket the tests read notifications from, with a receive timeout.
final class DatagramReceiver: @unchecked Sendable {
    let name: String
    private var fd: Int32
    private let directory: String?

    init(abstract: Bool) throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw ReceiverError("socket: errno \(errno)") }
        var pathBytes: [UInt8]
        if abstract {
            name = "@housectl-test-\(UUID().uuidString)"
            pathBytes = Array(name.utf8)
            pathBytes[0] = 0
            directory = nil
        } else {
            // A short directory: sun_path holds only 108 bytes.
            let dir = "/tmp/hn-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            directory = dir
            name = dir + "/notify"
            pathBytes = Array(name.utf8)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: pathBytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + pathBytes.count + (abstract ? 0 : 1))
        let socketFD = fd
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, length) }
        }
        guard bound == 0 else { throw ReceiverError("bind \(name): errno \(errno)") }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        guard setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            throw ReceiverError("setsockopt SO_RCVTIMEO: errno \(errno)")
        }
    }

    /// The next datagram, waiting at most 20 s (SO_RCVTIMEO; a hang guard, busy machines are slow).
    func receive() throws -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count >= 0 else { throw ReceiverError("recv: nothing within 20 s (errno \(errno))") }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// True when no datagram is queued right now (non-blocking check).
    /// `receive()` on a thread of its own: blocking a thread of the concurrency pool could keep
    /// the task that sends the datagram from running at all.
    func nextDatagram() async throws -> String {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<String, any Error>) in
            Thread.detachNewThread { c.resume(with: Result { try self.receive() }) }
        }
    }

    func receiveNothing() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
    }

    func close() {
        if fd >= 0 { _ = Glibc.close(fd); fd = -1 }
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }
}

struct ReceiverError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
