import Foundation

/// `housectl broker` as a child process: its port from the line it announces it with, its output
/// (stdout and stderr, read as it comes), its memory from /proc. Stopped with SIGKILL.
public final class HousectlBrokerProcess: Sendable {
    /// Resident memory, from /proc/PID/status.
    public struct Memory: Sendable {
        /// VmRSS in bytes.
        public var resident: Int
        /// VmHWM (the peak resident size) in bytes.
        public var peak: Int
    }

    /// The broker did not announce a port: what it wrote instead.
    public struct NoAnnouncement: Error, CustomStringConvertible {
        public let output: String
        public var description: String { "no port announced by housectl broker: \(output.suffix(2000))" }
    }

    /// What `housectl broker` writes on stdout once it listens, before "HOST:PORT".
    public static let announcement = "MQTT 3.1.1 and 5 listening on "

    public let watched: WatchedProcess
    public let port: Int
    public var process: SpawnedProcess { watched.process }

    private init(watched: WatchedProcess, port: Int) {
        self.watched = watched
        self.port = port
    }

    /// Starts `binary` with `arguments` (`broker ...`) and waits (at most `limit`) for its announcement.
    public static func start(_ binary: String, _ arguments: [String], within limit: Duration = .seconds(20)) async throws -> HousectlBrokerProcess {
        let watched = try WatchedProcess(binary, arguments)
        // "housectl broker: MQTT 3.1.1 and 5 listening on 127.0.0.1:PORT (Ctrl-C to stop)"
        guard let line = await watched.line(containing: announcement, within: limit),
              let range = line.range(of: announcement),
              let port = line[range.upperBound...].split(separator: " ").first?
                .split(separator: ":").last.flatMap({ Int($0.prefix { $0.isNumber }) }) else {
            watched.process.send(SIGKILL)
            throw NoAnnouncement(output: watched.output)
        }
        return HousectlBrokerProcess(watched: watched, port: port)
    }

    /// Resident and peak memory now; nil once the process is gone.
    public func memory() -> Memory? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8) else {
            return nil
        }
        func kilobytes(_ key: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") }) else { return nil }
            return line.split(separator: " ").compactMap { Int($0) }.first
        }
        guard let resident = kilobytes("VmRSS"), let peak = kilobytes("VmHWM") else { return nil }
        return Memory(resident: resident * 1024, peak: peak * 1024)
    }

    /// What the broker wrote so far.
    public func log() -> String { watched.output }

    /// SIGKILL, and waits until it has exited.
    public func kill() {
        process.send(SIGKILL)
        _ = process.waitUntilExit()
    }
}
