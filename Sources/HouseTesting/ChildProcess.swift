import Foundation

/// Runs command-line tools for fixtures (openssl, mosquitto_passwd) and waits for them by
/// termination event, not by polling (`SpawnedProcess`, not Foundation's `Process`).
public enum ChildProcess {
    /// Thrown when a tool exits with a non-zero status.
    public struct Failure: Error, CustomStringConvertible {
        /// The command line that failed.
        public let command: String
        /// Its exit status.
        public let status: Int32
        /// Its combined stdout and stderr.
        public let output: String
        public var description: String { "`\(command)` exited with status \(status): \(output)" }
    }

    /// Runs `executable` with `arguments`, returns its combined output, throws `Failure` on a
    /// non-zero exit status.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String]) async throws -> String {
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("housectl-child-\(UUID().uuidString).log")
        let output = open(outputURL.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw SpawnedProcess.SpawnFailed(executable: executable, errno: errno) }
        defer { try? FileManager.default.removeItem(at: outputURL) }
        let process: SpawnedProcess
        do {
            defer { close(output) }
            process = try SpawnedProcess(executable, arguments, output: output)
        }
        let status = await process.waitForExit()
        let text = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw Failure(command: ([executable] + arguments).joined(separator: " "), status: status, output: text)
        }
        return text
    }

    /// The first executable named `name` in `$PATH` or the usual sbin directories.
    public static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init)
            + ["/usr/sbin", "/usr/local/sbin", "/sbin", "/opt/homebrew/sbin", "/opt/homebrew/bin", "/usr/bin"]
        for directory in directories {
            let candidate = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
