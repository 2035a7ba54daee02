import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Tells systemd how the daemon is doing, with the `sd_notify` protocol and without libsystemd.
///
/// systemd passes a unix datagram socket in `$NOTIFY_SOCKET` (a path, or `@name` in the abstract
/// namespace) to a `Type=notify` service; each message is one datagram of `KEY=value` lines.
/// Outside systemd (`$NOTIFY_SOCKET` unset) every call is a no-op that returns `false`, so the
/// daemon can call it unconditionally.
///
/// The watchdog interval comes from `$WATCHDOG_USEC` (set by `WatchdogSec=`), and applies only when
/// `$WATCHDOG_PID` is unset or names this process. Feed it at least every half interval, e.g. with
/// ``feedWatchdog(clock:)``.
///
/// ```swift
/// let systemd = SystemdNotifier()
/// // ... configuration loaded, relays set, broker connecting ...
/// systemd.ready()
/// systemd.status("4 relays, broker connected")
/// group.addTask { await systemd.feedWatchdog(clock: ContinuousClock()) }
/// // on SIGTERM:
/// systemd.stopping()
/// ```
public struct SystemdNotifier: Sendable {
    /// The notification socket (`/run/systemd/notify`, or `@name` for the abstract namespace);
    /// nil when not running under systemd.
    public let socketPath: String?
    /// How often systemd expects `WATCHDOG=1`; nil when the watchdog is off or not for this process.
    public let watchdogTimeout: Duration?

    /// Reads `$NOTIFY_SOCKET`, `$WATCHDOG_USEC` and `$WATCHDOG_PID` from `environment`.
    /// - Parameter pid: this process's id, compared with `$WATCHDOG_PID`.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        pid: Int32 = getpid()
    ) {
        let socket = environment["NOTIFY_SOCKET"] ?? ""
        self.socketPath = socket.isEmpty ? nil : socket
        self.watchdogTimeout = SystemdNotifier.watchdogTimeout(environment: environment, pid: pid)
    }

    /// True when running under systemd with a notification socket.
    public var isEnabled: Bool { socketPath != nil }

    /// How often to send `WATCHDOG=1`: half the timeout, as systemd recommends; nil when no watchdog.
    public var watchdogPingInterval: Duration? { watchdogTimeout.map { $0 / 2 } }

    /// `READY=1`: startup finished (config loaded, relays set, broker connected or retrying).
    @discardableResult
    public func ready() -> Bool { send("READY=1") }

    /// `STATUS=...`: a one-line status shown by `systemctl status`. Newlines become spaces.
    @discardableResult
    public func status(_ text: String) -> Bool {
        let line = text.map { $0.isNewline ? " " : $0 }
        return send("STATUS=" + String(line))
    }

    /// `STOPPING=1`: shutdown began (relays are being switched to their safe state).
    @discardableResult
    public func stopping() -> Bool { send("STOPPING=1") }

    /// `WATCHDOG=1`: the daemon is alive. Does nothing when no watchdog is configured for it.
    @discardableResult
    public func watchdog() -> Bool {
        guard watchdogTimeout != nil else { return false }
        return send("WATCHDOG=1")
    }

    /// Sends `WATCHDOG=1` every ``watchdogPingInterval`` of `clock` until the task is cancelled.
    /// Returns at once when no watchdog is configured.
    public func feedWatchdog<C: Clock>(clock: C) async where C.Duration == Duration {
        guard let interval = watchdogPingInterval, interval > .zero else { return }
        while !Task.isCancelled {
            watchdog()
            do { try await clock.sleep(for: interval) } catch { return }
        }
    }

    /// Sends one datagram of newline-separated `KEY=value` assignments.
    /// - Returns: true when the datagram was sent; false outside systemd, or when the socket path
    ///   is unusable, or the send failed (notifications are best effort and never stop the daemon).
    @discardableResult
    public func send(_ message: String) -> Bool {
        guard let path = socketPath else { return false }
        return SystemdNotifier.sendDatagram(Array(message.utf8), to: path)
    }

    /// The watchdog timeout from `WATCHDOG_USEC` / `WATCHDOG_PID`, or nil.
    static func watchdogTimeout(environment: [String: String], pid: Int32) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0,
              usec <= UInt64(Int64.max)
        else { return nil }
        if let owner = environment["WATCHDOG_PID"], !owner.isEmpty {
            guard let ownerPID = Int32(owner), ownerPID == pid else { return nil }
        }
        return .microseconds(Int64(usec))
    }

    /// Builds the `sockaddr_un` for `path` (a leading `@` means the abstract namespace) and sends.
    private static func sendDatagram(_ bytes: [UInt8], to path: String) -> Bool {
        var pathBytes = Array(path.utf8)
        let abstract = pathBytes.first == UInt8(ascii: "@")
        if abstract { pathBytes[0] = 0 }
        var address = sockaddr_un()
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        // A filesystem path needs room for its terminating NUL; an abstract name does not.
        guard pathBytes.count > (abstract ? 1 : 0), pathBytes.count < capacity + (abstract ? 1 : 0),
              path.hasPrefix("/") || abstract
        else { return false }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + pathBytes.count + (abstract ? 0 : 1))

        #if canImport(Darwin)
        let fd = socket(AF_UNIX, SOCK_DGRAM, 0)
        #else
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #endif
        guard fd >= 0 else { return false }
        defer { close(fd) }
        #if canImport(Darwin)
        let flags: Int32 = 0
        #else
        let flags = Int32(MSG_NOSIGNAL)
        #endif
        let sent = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                    sendto(fd, buffer.baseAddress, buffer.count, flags, sa, length)
                }
            }
        }
        return sent == bytes.count
    }
}
