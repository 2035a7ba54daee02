import Foundation
import Synchronization

/// A real mosquitto broker for tests, on a free loopback port, with a generated configuration
/// and its output in a log file. Use it through `withMosquitto(configLines:_:)`.
///
/// When mosquitto is not installed, `start` throws `MosquittoBroker.NotInstalled`; suites should
/// add `.enabled(if: MosquittoBroker.shouldRun, ...)` so that a machine without mosquitto skips
/// them with a clear message, while CI (`CI=true`) runs them and fails.
public final class MosquittoBroker: Sendable {
    /// Thrown when no mosquitto binary is found.
    public struct NotInstalled: Error, CustomStringConvertible {
        public var description: String {
            "mosquitto is not installed (apt install mosquitto); tests needing it fail when CI=true"
        }
    }

    /// Thrown when the broker exits or does not accept connections in time.
    public struct StartFailed: Error, CustomStringConvertible {
        /// What went wrong.
        public let reason: String
        /// The broker's output so far.
        public let log: String
        public var description: String { "mosquitto did not start: \(reason)\n--- mosquitto log ---\n\(log)" }
        /// Whether its port was taken (mosquitto's "Address already in use").
        var portTaken: Bool { log.contains("Address already in use") }
    }

    /// The path of the mosquitto binary, if installed.
    public static let executable: String? = ChildProcess.find("mosquitto")
    /// Whether mosquitto is installed.
    public static var isInstalled: Bool { executable != nil }
    /// Whether `CI=true` is set: then a missing mosquitto is a failure, not a skip.
    public static var isCI: Bool { ProcessInfo.processInfo.environment["CI"]?.lowercased() == "true" }
    /// Use as `.enabled(if: MosquittoBroker.shouldRun, MosquittoBroker.skipMessage)`.
    public static var shouldRun: Bool { isInstalled || isCI }
    /// Why mosquitto tests are skipped.
    public static let skipMessage: Comment = "mosquitto not installed: skipping real-broker tests (set CI=true to fail instead)"
    public typealias Comment = String

    /// Always 127.0.0.1.
    public let host = "127.0.0.1"
    /// The TCP port it listens on (kept across `restart()`).
    public let port: Int
    /// Temporary directory holding `mosquitto.conf` and `mosquitto.log`; removed by `stop()`.
    public let directory: URL
    /// The generated configuration file.
    public var configURL: URL { directory.appendingPathComponent("mosquitto.conf") }
    /// Where the broker's stdout and stderr go (appended across restarts).
    public var logURL: URL { directory.appendingPathComponent("mosquitto.log") }

    private let process = Mutex<SpawnedProcess?>(nil)

    private init(port: Int, directory: URL) {
        self.port = port
        self.directory = directory
    }

    /// Starts mosquitto with `listener <port> 127.0.0.1`, `set_tcp_nodelay true`, no persistence,
    /// full logging, then `configLines` (which apply to that listener, e.g. TLS `certfile`), plus
    /// `allow_anonymous true` unless the lines mention `allow_anonymous` or `password_file`.
    /// Returns once the mosquitto it launched runs (its log says so) and the port accepts TCP
    /// connections; without `port`, a port another listener took first is replaced by another
    /// (3 attempts).
    public static func start(configLines: [String] = [], port: Int? = nil) async throws -> MosquittoBroker {
        guard executable != nil else { throw NotInstalled() }
        // A free port may be taken by another test's listener between `freeLoopbackPort()` and
        // mosquitto's bind: mosquitto then exits at once, and another port is tried.
        var attempt = 1
        while true {
            do {
                return try await start(configLines: configLines, port: port ?? freeLoopbackPort())
            } catch let failure as StartFailed where port == nil && failure.portTaken && attempt < 3 {
                attempt += 1
            }
        }
    }

    private static func start(configLines: [String], port: Int) async throws -> MosquittoBroker {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("housectl-mosquitto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let broker = MosquittoBroker(port: port, directory: directory)
        var lines = [
            "per_listener_settings false",
            "persistence false",
            "log_dest stderr",  // unbuffered: the log file is complete even after SIGKILL
            "log_type all",
            "listener \(broker.port) 127.0.0.1",
            "set_tcp_nodelay true",
        ]
        if geteuid() == 0 { lines.insert("user root", at: 0) }  // keep access to test files in /tmp
        lines += configLines
        if !configLines.contains(where: { $0.contains("allow_anonymous") || $0.contains("password_file") }) {
            lines.append("allow_anonymous true")
        }
        try (lines.joined(separator: "\n") + "\n").write(to: broker.configURL, atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: broker.logURL.path, contents: nil)
        do {
            try await broker.launch()
        } catch {
            await broker.stop()
            throw error
        }
        return broker
    }

    /// Whether the broker process is running.
    public var isRunning: Bool { process.withLock { $0?.isRunning ?? false } }

    /// The broker's log so far.
    public func log() -> String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// Kills the broker with SIGKILL (no clean shutdown, like a crash or power loss) and waits
    /// until the process has exited.
    public func kill() async {
        guard let running = process.withLock({ p -> SpawnedProcess? in defer { p = nil }; return p }) else { return }
        running.send(SIGKILL)
        await running.waitForExit()
    }

    /// Freezes the broker (SIGSTOP): its connections stay open and nothing is answered, as with a
    /// hung host. `kill()` and `stop()` still end it.
    public func freeze() {
        process.withLock { $0?.send(SIGSTOP) }
    }

    /// Starts the broker again on the same port with the same configuration.
    public func restart() async throws {
        await kill()
        try await launch()
    }

    /// Kills the broker and removes its directory.
    public func stop() async {
        await kill()
        try? FileManager.default.removeItem(at: directory)
    }

    private func launch() async throws {
        guard let executable = Self.executable else { throw NotInstalled() }
        // The log is appended across restarts: only what this launch writes counts.
        let logStart = log().utf8.count
        let output = open(logURL.path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard output >= 0 else { throw StartFailed(reason: "cannot open \(logURL.path): errno \(errno)", log: "") }
        defer { close(output) }
        let p = try SpawnedProcess(executable, ["-c", configURL.path], output: output)
        process.withLock { $0 = p }
        try await waitUntilRunning(logStart: logStart, deadline: .seconds(15))
    }

    /// Polls until this launch's log says mosquitto runs (after it opened its listener) and the
    /// port accepts TCP connections: waiting on the "listening" event, bounded by `deadline`.
    /// The port accepting alone is not enough: a mosquitto that could not bind (another test's
    /// listener took the port a moment before) exits, but that listener accepts in the meantime,
    /// and a client connecting there would wait for a CONNACK that never comes.
    private func waitUntilRunning(logStart: Int, deadline: Duration) async throws {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: deadline)
        while clock.now < end {
            if !isRunning {
                throw StartFailed(reason: "the process exited", log: log())
            }
            let launched = String(decoding: log().utf8.dropFirst(logStart), as: UTF8.self)
            if launched.contains(" running\n"), Self.acceptsConnections(port: port) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw StartFailed(reason: "port \(port) not accepting after \(deadline)", log: log())
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port` right now.
    public static func acceptsConnections(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return rc == 0
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0, read it back). Another
    /// test may take it before it is used: for a port that must stay closed, use `ClosedPort`.
    public static func freeLoopbackPort() throws -> Int {
        let reserved = try ClosedPort()
        defer { reserved.release() }
        return reserved.port
    }
}

/// Starts a mosquitto broker for the duration of `body` and kills it afterwards, also when `body`
/// throws. See `MosquittoBroker.start(configLines:port:)` for the generated configuration.
///
/// ```swift
/// try await withMosquitto { broker in
///     let client = try MQTTClient(configuration: .init(host: broker.host, port: broker.port))
///     ...
///     await broker.kill(); try await broker.restart()
/// }
/// ```
public func withMosquitto<Result: Sendable>(
    configLines: [String] = [],
    _ body: (MosquittoBroker) async throws -> Result
) async throws -> Result {
    let broker = try await MosquittoBroker.start(configLines: configLines)
    do {
        let result = try await body(broker)
        await broker.stop()
        return result
    } catch {
        await broker.stop()
        throw error
    }
}
