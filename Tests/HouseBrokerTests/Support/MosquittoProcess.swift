import Foundation
import HouseTesting
import Testing

/// Runs the Debian `mosquitto_pub` / `mosquitto_sub` programs against our broker.
/// Output goes to a temporary file; exits are awaited as events (`SpawnedProcess`, no polling);
/// stray processes are stopped with SIGKILL by PID.
final class MosquittoProcess: Sendable {
    static let directory = "/usr/bin"
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: "\(directory)/mosquitto_pub")
            && FileManager.default.isExecutableFile(atPath: "\(directory)/mosquitto_sub")
    }
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }
    /// Run the interop tests when the tools exist, and always on CI (where missing tools then fail).
    static var shouldRun: Bool { available || isCI }

    /// Fails the test (instead of skipping) when the tools are missing.
    static func requireTools() throws {
        try #require(available, "mosquitto_pub/mosquitto_sub not found in \(directory): install mosquitto-clients")
    }

    let process: SpawnedProcess
    let tool: String
    let outputURL: URL

    init(_ tool: String, _ arguments: [String]) throws {
        self.tool = tool
        outputURL = FileManager.default.temporaryDirectory
            .appendingPathComponent("housebroker-\(tool)-\(UUID().uuidString).out")
        let output = open(outputURL.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw SpawnedProcess.SpawnFailed(executable: tool, errno: errno) }
        defer { close(output) }
        process = try SpawnedProcess("\(Self.directory)/\(tool)", arguments, output: output)
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: outputURL)
    }

    /// Sends SIGKILL if still running.
    func kill() {
        process.send(SIGKILL)
    }

    /// Waits for the exit status; after `timeout` the process is killed and an error thrown.
    func waitForExit(timeout: Duration = .seconds(15)) async throws -> Int32 {
        let status: Int32? = try await withThrowingTaskGroup(of: Int32?.self) { group in
            group.addTask { await self.process.waitForExit() }
            group.addTask {
                try await Task.sleep(for: timeout)  // a deadline, not a wait for the event
                return nil
            }
            let first = try await group.next()!
            group.cancelAll()
            if let first { return first }
            kill()  // the deadline passed: stop it and report the timeout
            _ = try? await group.next()
            return nil
        }
        guard let status else { throw RawClientError(description: "\(tool) did not exit") }
        return status
    }

    /// Everything the program printed.
    var output: String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }

    /// Runs `mosquitto_pub` to completion and expects exit 0.
    static func publish(port: Int, _ arguments: [String]) async throws {
        let process = try MosquittoProcess("mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(port)", "--nodelay"] + arguments)
        let status = try await process.waitForExit()
        #expect(status == 0, "mosquitto_pub \(arguments): \(process.output)")
    }

    /// Starts `mosquitto_sub` printing `retain qos topic payload` per message.
    static func subscribe(port: Int, clientID: String, _ arguments: [String]) throws -> MosquittoProcess {
        try MosquittoProcess("mosquitto_sub", ["-h", "127.0.0.1", "-p", "\(port)", "--nodelay", "-i", clientID,
                                               "-F", "%r %q %t %p"] + arguments)
    }
}
