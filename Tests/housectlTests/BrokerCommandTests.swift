import Foundation
import HouseTesting
import Testing

/// `housectl broker` end to end: the built binary serves the Debian mosquitto clients.
@Suite("housectl broker")
struct BrokerCommandTests {
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }
    static var mosquittoAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_pub") }

    /// The housectl binary next to the test bundle (.build/<config>/housectl).
    static var binary: URL {
        let candidates = [
            Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent(),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
        ].map { $0.appendingPathComponent("housectl") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    /// Runs a program to completion (bounded), returning status and combined output.
    static func run(_ path: String, _ arguments: [String], timeout: Duration = .seconds(15)) async throws -> (Int32, String) {
        let run = try CapturedProcess(path, arguments)
        let status: Int32
        do {
            status = try await withTimeout(timeout, "\(path) to exit") { await run.process.waitForExit() }
        } catch {
            run.process.send(SIGKILL)
            status = await run.process.waitForExit()
        }
        return (status, run.output)
    }

    @Test("serves mosquitto_pub and mosquitto_sub, with a password file", .enabled(if: mosquittoAvailable || isCI))
    func servesMosquittoClients() async throws {
        try #require(Self.mosquittoAvailable, "mosquitto-clients are not installed")
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "housectl not built at \(Self.binary.path)")
        let passwords = FileManager.default.temporaryDirectory.appendingPathComponent("housectl-pw-\(UUID().uuidString)")
        try "alice:secret\n".write(to: passwords, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: passwords) }

        let broker = try await HousectlBrokerProcess.start(Self.binary.path, ["broker", "--port", "0", "--password-file", passwords.path, "-v"],
                                                           within: .seconds(15))
        defer { broker.kill() }
        let port = broker.port

        async let subscriber = Self.run("/usr/bin/mosquitto_sub", [
            "-h", "127.0.0.1", "-p", "\(port)", "-u", "alice", "-P", "secret", "-t", "cli/#", "-q", "1",
            "-C", "1", "-W", "10", "-F", "%r %t %p"])
        // The retained message reaches the subscriber whether it subscribes before or after.
        let (pubStatus, pubOutput) = try await Self.run("/usr/bin/mosquitto_pub", [
            "-h", "127.0.0.1", "-p", "\(port)", "-u", "alice", "-P", "secret", "-t", "cli/hello", "-m", "world",
            "-q", "1", "-r"])
        #expect(pubStatus == 0, "\(pubOutput)")
        let (subStatus, subOutput) = try await subscriber
        #expect(subStatus == 0)
        #expect(subOutput.hasSuffix("cli/hello world\n"), "\(subOutput)")

        let (badStatus, badOutput) = try await Self.run("/usr/bin/mosquitto_pub", [
            "-h", "127.0.0.1", "-p", "\(port)", "-u", "alice", "-P", "wrong", "-t", "x", "-m", "y"])
        #expect(badStatus != 0)
        #expect(badOutput.contains("bad user name or password"), "\(badOutput)")
    }

    @Test("a bad ACL file is a clear error")
    func badACL() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path))
        let acl = FileManager.default.temporaryDirectory.appendingPathComponent("housectl-acl-\(UUID().uuidString)")
        try "user bob\ntopic sometimes house/#\n".write(to: acl, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: acl) }
        let (status, output) = try await Self.run(Self.binary.path, ["broker", "--port", "0", "--acl", acl.path])
        #expect(status != 0)
        #expect(output.contains("\(acl.path):2: access must be read, write, readwrite or deny"), "\(output)")
    }

    @Test("beyond loopback it needs passwords; a certificate without its key is a clear error")
    func lanListener() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path))
        let (status, output) = try await Self.run(Self.binary.path, ["broker", "--host", "0.0.0.0", "--port", "0"])
        #expect(status != 0)
        #expect(output.contains("refusing to listen on 0.0.0.0 without passwords"), "\(output)")
        let (status2, output2) = try await Self.run(Self.binary.path, ["broker", "--port", "0", "--tls-cert", "/nonexistent.crt"])
        #expect(status2 != 0)
        #expect(output2.contains("--tls-cert and --tls-key go together"), "\(output2)")
        let (status3, output3) = try await Self.run(Self.binary.path, ["broker", "--port", "0", "--tls-cert", "/nonexistent.crt", "--tls-key", "/nonexistent.key"])
        #expect(status3 != 0)
        #expect(output3.contains("cannot set up TLS") && output3.contains("/nonexistent.crt"), "\(output3)")
    }

    @Test("limit options: sizes take K/M/G, out-of-range values are clear errors")
    func limitOptions() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path))
        let (levels, levelsOutput) = try await Self.run(Self.binary.path, ["broker", "--port", "0", "--max-topic-levels", "0"])
        #expect(levels != 0)
        #expect(levelsOutput.contains("--max-topic-levels must be between 1 and 65535"), "\(levelsOutput)")
        let (size, sizeOutput) = try await Self.run(Self.binary.path, ["broker", "--port", "0", "--max-packet-size", "1x"])
        #expect(size != 0)
        #expect(sizeOutput.contains("The value '1x' is invalid for '--max-packet-size"), "\(sizeOutput)")
        let (_, help) = try await Self.run(Self.binary.path, ["broker", "--help"])
        #expect(help.contains("--max-retained-bytes"))
        #expect(help.contains("(default: 64MiB)"))
    }
}
