import Foundation
import Testing

/// Runs the Debian `mosquitto_pub` / `mosquitto_sub` programs against our broker.
/// Output goes to a temporary file; exits are awaited through the termination handler (no polling);
/// stray processes are stopped with SIGKILL by PID.
final class MosquittoProcess: @unchecked Sendable {
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

    let process = Process()
    let outputURL: URL
    private let lock = NSLock()
    private var exitStatus: Int32?
    private var waiter: CheckedContinuation<Int32, Never>?

    init(_ tool: String, _ arguments: [String]) throws {
        outputURL = FileManager.default.temporaryDirectory
            .appendingPathComponent("housebroker-\(tool)-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        let handle = try FileHandle(forWritingTo: outputURL)
        process.executableURL = URL(fileURLWithPath: "\(Self.directory)/\(tool)")
        process.arguments = arguments
        process.standardOutput = handle
        process.standardError = handle
        process.terminationHandler = { [weak self] process in
            try? handle.close()
            guard let self else { return }
            self.lock.lock()
            self.exitStatus = process.terminationStatus
            let waiter = self.waiter
            self.waiter = nil
            self.lock.unlock()
            waiter?.resume(returning: process.terminationStatus)
        }
        try process.run()
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: outputURL)
    }

    /// Sends SIGKILL if still running.
    func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
    }

    /// Waits for the exit status; after `timeout` the process is killed and an error thrown.
    func waitForExit(timeout: Duration = .seconds(15)) async throws -> Int32 {
        let status: Int32? = try await withThrowingTaskGroup(of: Int32?.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    self.lock.lock()
                    if let status = self.exitStatus {
                        self.lock.unlock()
                        continuation.resume(returning: status)
                    } else {
                        self.waiter = continuation
                        self.lock.unlock()
                    }
                }
            }
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
        guard let status else { throw RawClientError(description: "\(process.executableURL!.lastPathComponent) did not exit") }
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
