import Foundation
import Testing
import HouseTesting

/// The files under deploy/: the systemd unit verifies, every script passes shellcheck, and the
/// installer's dry run shows the whole plan.
@Suite("Deploy files")
struct DeployTests {
    static let unit = DeployTools.repoRoot + "/deploy/systemd/housectl.service"

    /// `systemd-analyze verify` checks that ExecStart's binary exists and is executable (systemd 252
    /// ignores `--root` for that check, and only skips it for `-`-prefixed commands, which would
    /// change the unit's meaning). Creating /usr/local/bin/housectl on the test machine is not
    /// allowed, so the unit is verified twice:
    /// 1. as shipped: the only complaint allowed is that /usr/local/bin/housectl is not there
    ///    (when it is installed, verify must pass outright);
    /// 2. a copy whose ExecStart path points at a stub executable in a temp dir, every other byte
    ///    unchanged: verify must pass with no output at all.
    @Test("systemd-analyze verify accepts the unit")
    func unitVerifies() throws {
        guard let analyze = DeployTools.require("systemd-analyze") else { return }

        let shipped = try DeployTools.run(analyze, ["verify", "--man=no", Self.unit])
        let complaints = shipped.output.split(separator: "\n").filter {
            !$0.contains("Command /usr/local/bin/housectl is not executable")
        }
        #expect(complaints.isEmpty, "systemd-analyze verify (as shipped):\n\(shipped.output)")
        if FileManager.default.isExecutableFile(atPath: "/usr/local/bin/housectl") {
            #expect(shipped.status == 0, "\(shipped.output)")
        }

        let dir = try DeployTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let stub = dir + "/housectl"
        try "#!/bin/sh\nexit 0\n".write(toFile: stub, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: stub)
        let text = try String(contentsOfFile: Self.unit, encoding: .utf8)
        #expect(text.contains("ExecStart=/usr/local/bin/housectl serve --config /etc/housectl/house.yaml"))
        let copy = dir + "/housectl.service"
        try text.replacingOccurrences(of: "ExecStart=/usr/local/bin/housectl", with: "ExecStart=" + stub)
            .write(toFile: copy, atomically: true, encoding: .utf8)
        let verified = try DeployTools.run(analyze, ["verify", "--man=no", copy])
        #expect(verified.status == 0, "systemd-analyze verify:\n\(verified.output)")
        #expect(verified.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(verified.output)")
    }

    @Test("the unit has the settings the shutdown policy and hardening rely on")
    func unitSettings() throws {
        let text = try String(contentsOfFile: Self.unit, encoding: .utf8)
        let lines = Set(text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        for expected in [
            "Type=notify", "NotifyAccess=main", "User=housectl", "SupplementaryGroups=gpio",
            "StateDirectory=housectl", "ConfigurationDirectory=housectl", "Restart=on-failure",
            "KillSignal=SIGTERM", "TimeoutStopSec=20s", "NoNewPrivileges=yes", "ProtectSystem=strict",
            "ProtectHome=yes", "PrivateTmp=yes", "DevicePolicy=closed", "DeviceAllow=char-gpiochip rw",
            "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6", "ReadWritePaths=-/etc/housectl/house.accepted.yaml",
        ] {
            #expect(lines.contains(expected), "housectl.service lacks \(expected)")
        }
        #expect(lines.contains { $0.hasPrefix("WatchdogSec=") })
        #expect(lines.contains { $0.hasPrefix("RestartSec=") })
    }

    @Test("every script under deploy/ passes shellcheck")
    func shellcheck() throws {
        guard let shellcheck = DeployTools.require("shellcheck") else { return }
        let scripts = try DeployTools.shellScripts()
        #expect(scripts.contains { $0.hasSuffix("/deploy/install.sh") })
        #expect(scripts.contains { $0.hasSuffix("/deploy/mosquitto/make-passwords.sh") })
        for script in scripts {
            let result = try DeployTools.run(shellcheck, ["--severity=style", script])
            #expect(result.status == 0, "shellcheck \(script):\n\(result.output)")
        }
    }

    @Test("install.sh --dry-run prints the whole plan and changes nothing")
    func installDryRun() throws {
        let script = DeployTools.repoRoot + "/deploy/install.sh"
        let result = try DeployTools.run("/bin/sh", [script, "--dry-run", "--with-mosquitto"])
        #expect(result.status == 0, "\(result.output)")
        let plan = result.output
        for expected in [
            "apt-get install", "swift build", "-c release",
            "useradd --system", "housectl", "usermod --append --groups gpio housectl",
            "/usr/local/bin/housectl", "/etc/systemd/system/housectl.service", "systemctl enable housectl.service",
            "/usr/local/share/housectl/devices", "/etc/housectl", "/dev/null /etc/housectl/house.accepted.yaml",
            "/etc/mosquitto/acl", "make-passwords.sh", "make-certs.sh -d /etc/mosquitto/certs",
            "housectl deploy boot-config --config /etc/housectl/house.yaml",
        ] {
            #expect(plan.contains(expected), "dry run plan lacks '\(expected)':\n\(plan)")
        }
        // Nothing runs in a dry run: every command line is announced as "would run".
        let commandLines = plan.split(separator: "\n").filter { $0.hasPrefix("+ ") }
        #expect(commandLines.isEmpty, "dry run executed: \(commandLines)")
    }

    @Test("install.sh --help explains the options; an unknown option is refused")
    func installHelp() throws {
        let script = DeployTools.repoRoot + "/deploy/install.sh"
        let help = try DeployTools.run("/bin/sh", [script, "--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("--dry-run"))
        #expect(help.output.contains("--with-mosquitto"))
        let bad = try DeployTools.run("/bin/sh", [script, "--frobnicate"])
        #expect(bad.status != 0)
        #expect(bad.output.contains("unknown argument '--frobnicate'"))
    }
}

/// Finding tools, running them, and where the repository is.
enum DeployTools {
    /// The package root (three levels above this file).
    static let repoRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// True when the environment says CI=true: missing tools are failures there, skips elsewhere.
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// The absolute path of `tool` on $PATH (plus the sbin directories), or nil.
    static func find(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let dirs = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/local/sbin"]
        return dirs.map { $0 + "/" + tool }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The path of `tool`; when it is missing, records a failure under CI=true and returns nil
    /// (the caller then skips its test).
    static func require(_ tool: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        if let found = find(tool) { return found }
        if isCI {
            Issue.record("\(tool) is not installed (CI=true: scripts/ensure-deps.sh installs it)", sourceLocation: sourceLocation)
        }
        return nil
    }

    /// Every `*.sh` under deploy/.
    static func shellScripts() throws -> [String] {
        let root = repoRoot + "/deploy"
        let all = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return all.filter { $0.hasSuffix(".sh") }.map { root + "/" + $0 }.sorted()
    }

    /// A new private temp directory with a short path.
    static func temporaryDirectory() throws -> String {
        let dir = "/tmp/housectl-deploy-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The outcome of a finished process: its exit status and its stdout and stderr together.
    struct Result {
        var status: Int32
        var output: String
    }

    /// Runs `executable` to completion (the tools here all exit by themselves), output to a file.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil
    ) throws -> Result {
        let (status, text) = try CapturedProcess.run(executable, arguments, environment: environment, directory: directory)
        return Result(status: status, output: text)
    }
}
