import Foundation
import Testing

#if canImport(Glibc)
import Glibc
import HouseTesting
#endif

/// deploy/mosquitto/acl and make-passwords.sh against a real mosquitto: automation users may
/// send commands but not forge state, and a wrong password is refused.
@Suite("Deploy mosquitto ACL", .serialized)
struct DeployMosquittoTests {
    static let housectlPassword = "hc-\(UUID().uuidString.prefix(12))"
    static let automationPassword = "ha-\(UUID().uuidString.prefix(12))"

    @Test("automation users publish set topics, never state; wrong passwords are refused")
    func aclAndPasswords() throws {
        guard let mosquitto = DeployTools.require("mosquitto"),
              let pub = DeployTools.require("mosquitto_pub"),
              let sub = DeployTools.require("mosquitto_sub"),
              DeployTools.require("mosquitto_passwd") != nil
        else { return }

        let dir = try DeployTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.copyItem(atPath: DeployTools.repoRoot + "/deploy/mosquitto/acl", toPath: dir + "/acl")

        // Passwords from the environment for two users; one generated (and printed once) for nodered.
        let made = try DeployTools.run(
            "/bin/sh",
            [DeployTools.repoRoot + "/deploy/mosquitto/make-passwords.sh", "-f", dir + "/passwd",
             "-s", dir + "/housectl-secret", "housectl", "homeassistant", "nodered"],
            environment: [
                "MQTT_PASSWORD_HOUSECTL": Self.housectlPassword,
                "MQTT_PASSWORD_HOMEASSISTANT": Self.automationPassword,
            ]
        )
        #expect(made.status == 0, "\(made.output)")
        #expect(!made.output.contains(Self.housectlPassword), "a given password was echoed")
        #expect(!made.output.contains(Self.automationPassword), "a given password was echoed")
        let generated = made.output.split(separator: "\n")
            .first { $0.hasPrefix("  nodered: ") }
            .map { String($0.dropFirst("  nodered: ".count)) }
        let noderedPassword = try #require(generated, "no generated password for nodered:\n\(made.output)")
        #expect(noderedPassword.count == 24)
        let secret = try String(contentsOfFile: dir + "/housectl-secret", encoding: .utf8)
        #expect(secret == Self.housectlPassword + "\n", "the daemon's secret file")
        let secretMode = try FileManager.default.attributesOfItem(atPath: dir + "/housectl-secret")[.posixPermissions] as? Int
        #expect(secretMode.map { $0 & 0o007 } == 0, "the secret file is readable by others")
        let passwd = try String(contentsOfFile: dir + "/passwd", encoding: .utf8)
        #expect(!passwd.contains(Self.housectlPassword) && !passwd.contains(noderedPassword), "password stored in clear")

        let broker = try TestMosquitto(executable: mosquitto, directory: dir)
        defer { broker.stop() }
        let port = String(broker.port)
        func client(_ user: String, _ password: String, id: String) -> [String] {
            ["-h", "127.0.0.1", "-p", port, "-u", user, "-P", password, "-i", id, "-V", "mqttv311"]
        }

        // 1. housectl listens to the whole tree. An automation user forges a state message, then
        //    sends a command (the sentinel): only the sentinel arrives, and the broker logs the denial.
        let daemonSub = try BackgroundClient(
            sub, client("housectl", Self.housectlPassword, id: "daemon-sub") + ["-t", "house/#", "-v", "-C", "1", "-W", "5"],
            output: dir + "/daemon-sub.txt")
        #expect(broker.log.wait(for: "daemon-sub 0 house/#"), "housectl's subscription was not seen:\n\(broker.log.output)")
        let forged = try DeployTools.run(
            pub, client("homeassistant", Self.automationPassword, id: "ha-forge") + ["-q", "1", "-t", "house/x/y/state", "-m", "FORGED"])
        #expect(forged.status == 0, "\(forged.output)")
        #expect(broker.log.wait(for: "Denied PUBLISH from ha-forge"), "no denial logged:\n\(broker.log.output)")
        let command = try DeployTools.run(
            pub, client("homeassistant", Self.automationPassword, id: "ha-set") + ["-q", "1", "-t", "house/x/y/set", "-m", "SENTINEL"])
        #expect(command.status == 0, "\(command.output)")
        let received = daemonSub.finish()
        #expect(received.status == 0, "housectl's subscriber got nothing: \(received.output)")
        #expect(received.output.trimmingCharacters(in: .whitespacesAndNewlines) == "house/x/y/set SENTINEL")

        // 2. The automation user reads state that housectl publishes.
        let automationSub = try BackgroundClient(
            sub, client("homeassistant", Self.automationPassword, id: "ha-sub") + ["-t", "house/#", "-v", "-C", "1", "-W", "5"],
            output: dir + "/ha-sub.txt")
        #expect(broker.log.wait(for: "ha-sub 0 house/#"), "the automation subscription was not seen:\n\(broker.log.output)")
        let state = try DeployTools.run(
            pub, client("housectl", Self.housectlPassword, id: "daemon-pub") + ["-q", "1", "-t", "house/x/y/state", "-m", "ON"])
        #expect(state.status == 0, "\(state.output)")
        let stateSeen = automationSub.finish()
        #expect(stateSeen.output.trimmingCharacters(in: .whitespacesAndNewlines) == "house/x/y/state ON", "\(stateSeen.output)")

        // 3. The generated password works; a wrong one is refused.
        let nodered = try DeployTools.run(
            pub, client("nodered", noderedPassword, id: "nodered-pub") + ["-q", "1", "-t", "house/intent/request", "-m", "{}"])
        #expect(nodered.status == 0, "the generated password was refused: \(nodered.output)")
        let wrong = try DeployTools.run(
            pub, client("homeassistant", "wrong-password", id: "ha-wrong") + ["-q", "1", "-t", "house/x/y/set", "-m", "ON"])
        #expect(wrong.status != 0)
        #expect(wrong.output.localizedCaseInsensitiveContains("not authori"), "\(wrong.output)")
        let anonymous = try DeployTools.run(
            pub, ["-h", "127.0.0.1", "-p", port, "-i", "anon", "-V", "mqttv311", "-t", "house/x/y/set", "-m", "ON"])
        #expect(anonymous.status != 0, "an anonymous client was accepted: \(anonymous.output)")
    }

    @Test("the shipped mosquitto.conf starts, with TLS, and refuses an untrusted server certificate")
    func shippedConfigRuns() throws {
        guard let mosquitto = DeployTools.require("mosquitto"),
              let pub = DeployTools.require("mosquitto_pub"),
              let openssl = DeployTools.require("openssl")
        else { return }
        let dir = try DeployTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.copyItem(atPath: DeployTools.repoRoot + "/deploy/mosquitto/acl", toPath: dir + "/acl")
        let made = try DeployTools.run(
            "/bin/sh", [DeployTools.repoRoot + "/deploy/mosquitto/make-passwords.sh", "-f", dir + "/passwd", "homeassistant"],
            environment: ["MQTT_PASSWORD_HOMEASSISTANT": Self.automationPassword])
        #expect(made.status == 0, "\(made.output)")

        // A throw-away CA and a server certificate for 127.0.0.1 (make-certs.sh), and a second CA
        // nobody trusts.
        let makeCerts = DeployTools.repoRoot + "/deploy/mosquitto/make-certs.sh"
        let certs = try DeployTools.run("/bin/sh", [makeCerts, "-d", dir + "/certs", "--days", "2", "127.0.0.1", "localhost"])
        try #require(certs.status == 0, "make-certs.sh: \(certs.output)")
        let other = try DeployTools.run("/bin/sh", [makeCerts, "-d", dir + "/other", "127.0.0.1"])
        try #require(other.status == 0, "make-certs.sh: \(other.output)")
        let verified = try DeployTools.run(openssl, ["verify", "-CAfile", dir + "/certs/ca.crt", dir + "/certs/server.crt"])
        #expect(verified.status == 0, "\(verified.output)")
        let subject = try DeployTools.run(openssl, ["x509", "-in", dir + "/certs/server.crt", "-noout", "-ext", "subjectAltName"])
        #expect(subject.output.contains("IP Address:127.0.0.1") && subject.output.contains("DNS:localhost"), "\(subject.output)")
        // Run again: the CA and the certificate are kept.
        let caBefore = try String(contentsOfFile: dir + "/certs/ca.crt", encoding: .utf8)
        let again = try DeployTools.run("/bin/sh", [makeCerts, "-d", dir + "/certs", "127.0.0.1"])
        #expect(again.status == 0 && again.output.contains("keeping"), "\(again.output)")
        #expect(try String(contentsOfFile: dir + "/certs/ca.crt", encoding: .utf8) == caBefore)

        // The shipped file with its paths moved into the temp dir and its ports onto free loopback ports.
        let plainPort = try TestMosquitto.freePort()
        var tlsPort = try TestMosquitto.freePort()
        while tlsPort == plainPort { tlsPort = try TestMosquitto.freePort() }
        let shipped = try String(contentsOfFile: DeployTools.repoRoot + "/deploy/mosquitto/mosquitto.conf", encoding: .utf8)
        let config = shipped
            .replacingOccurrences(of: "listener 1883 127.0.0.1", with: "listener \(plainPort) 127.0.0.1")
            .replacingOccurrences(of: "listener 8883", with: "listener \(tlsPort) 127.0.0.1")
            .replacingOccurrences(of: "/etc/mosquitto/", with: dir + "/")
            .replacingOccurrences(of: "/var/lib/mosquitto/", with: dir + "/")
            .replacingOccurrences(of: "/var/log/mosquitto/", with: dir + "/")
            .replacingOccurrences(of: "/run/mosquitto/", with: dir + "/")
        #expect(!config.contains("/etc/") && !config.contains("/var/") && !config.contains("/run/"), "\(config)")
        let broker = try TestMosquitto(executable: mosquitto, directory: dir, port: plainPort, config: config)
        defer { broker.stop() }

        let user = ["-u", "homeassistant", "-P", Self.automationPassword, "-V", "mqttv311", "-q", "1",
                    "-t", "house/x/y/set", "-m", "ON", "-h", "127.0.0.1"]
        let plain = try DeployTools.run(pub, user + ["-p", String(plainPort), "-i", "plain"])
        #expect(plain.status == 0, "plain loopback listener: \(plain.output)")
        let tls = try DeployTools.run(pub, user + ["-p", String(tlsPort), "-i", "tls", "--cafile", dir + "/certs/ca.crt"])
        #expect(tls.status == 0, "TLS listener: \(tls.output)")
        let untrusted = try DeployTools.run(pub, user + ["-p", String(tlsPort), "-i", "untrusted", "--cafile", dir + "/other/ca.crt"])
        #expect(untrusted.status != 0, "a server certificate from an untrusted CA was accepted")
        #expect(untrusted.output.contains("TLS error"), "\(untrusted.output)")
        let cleartextOnTLS = try DeployTools.run(pub, user + ["-p", String(tlsPort), "-i", "cleartext"])
        #expect(cleartextOnTLS.status != 0, "the TLS listener accepted a cleartext client")
    }

    @Test("make-passwords.sh is idempotent: existing users keep their password unless --reset")
    func passwordsIdempotent() throws {
        guard DeployTools.require("mosquitto_passwd") != nil else { return }
        let dir = try DeployTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let script = DeployTools.repoRoot + "/deploy/mosquitto/make-passwords.sh"
        func hashes() throws -> [String: String] {
            let text = try String(contentsOfFile: dir + "/passwd", encoding: .utf8)
            return Dictionary(uniqueKeysWithValues: text.split(separator: "\n").map {
                let parts = $0.split(separator: ":", maxSplits: 1)
                return (String(parts[0]), String(parts[1]))
            })
        }
        let first = try DeployTools.run("/bin/sh", [script, "-f", dir + "/passwd"])
        #expect(first.status == 0, "\(first.output)")
        let before = try hashes()
        #expect(Set(before.keys) == ["housectl", "homeassistant", "nodered"])
        #expect(first.output.contains("  housectl: ") && first.output.contains("  nodered: "))

        let again = try DeployTools.run("/bin/sh", [script, "-f", dir + "/passwd"])
        #expect(again.status == 0)
        #expect(try hashes() == before)
        #expect(!again.output.contains("Generated passwords"), "\(again.output)")

        let reset = try DeployTools.run("/bin/sh", [script, "-f", dir + "/passwd", "--reset", "nodered"])
        #expect(reset.status == 0)
        let after = try hashes()
        #expect(after["nodered"] != before["nodered"])
        #expect(after["housectl"] == before["housectl"])

        let bad = try DeployTools.run("/bin/sh", [script, "-f", dir + "/passwd", "bad:name"])
        #expect(bad.status != 0)
        #expect(bad.output.contains("invalid user name 'bad:name'"))
    }

    @Test("the shipped mosquitto.conf requires authentication and keeps plain MQTT on loopback")
    func shippedConfig() throws {
        let text = try String(contentsOfFile: DeployTools.repoRoot + "/deploy/mosquitto/mosquitto.conf", encoding: .utf8)
        let lines = Set(text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        for expected in [
            "listener 1883 127.0.0.1", "listener 8883", "allow_anonymous false",
            "password_file /etc/mosquitto/passwd", "acl_file /etc/mosquitto/acl", "persistence true",
            "max_queued_messages 10000",
        ] {
            #expect(lines.contains(expected), "mosquitto.conf lacks '\(expected)'")
        }
        #expect(lines.contains { $0.hasPrefix("cafile ") } && lines.contains { $0.hasPrefix("certfile ") }
            && lines.contains { $0.hasPrefix("keyfile ") })
        #expect(!lines.contains("listener 1883"), "plain MQTT must not listen on every interface")
    }
}

/// A mosquitto on a free loopback port with the ACL and password file in `directory`.
/// Its log goes to `directory/mosquitto.log`; the same lines come through stderr, which the test
/// reads to wait for events (listening, subscribed, denied) without sleeping.
final class TestMosquitto {
    let port: Int
    let log: WatchedProcess

    /// Starts mosquitto with a test configuration: the ACL and password file in `directory`.
    convenience init(executable: String, directory: String) throws {
        let port = try Self.freePort()
        let config = """
            listener \(port) 127.0.0.1
            allow_anonymous false
            password_file \(directory)/passwd
            acl_file \(directory)/acl
            persistence false
            log_dest file \(directory)/mosquitto.log

            """
        try self.init(executable: executable, directory: directory, port: port, config: config)
    }

    /// Starts mosquitto with `config` (plus the test settings) and waits until it runs.
    init(executable: String, directory: String, port: Int, config: String) throws {
        self.port = port
        let config = config + """

            set_tcp_nodelay true
            # Tests may run as root; stay root so the files in the temp dir stay readable.
            user root
            log_dest stderr
            log_type all

            """
        try config.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        log = try WatchedProcess(executable, ["-c", directory + "/mosquitto.conf"])
        guard log.wait(for: "running") else {
            stop()
            throw ReceiverError("mosquitto did not start on port \(port):\n\(log.output)")
        }
    }

    /// SIGKILL (the test wants it gone, not shut down), then reaps it.
    func stop() {
        log.process.send(SIGKILL)
        log.process.waitUntilExit()
    }

    /// A loopback port nobody listens on right now (bound to port 0, then released).
    static func freePort() throws -> Int {
        let (fd, port): (Int32, Int)
        do { (fd, port) = try bindLoopback(listening: nil) } catch {
            throw ReceiverError("bind/getsockname on 127.0.0.1:0: \(error)")
        }
        close(fd)
        return port
    }
}

/// A client (mosquitto_sub) running while the test does other things; it exits by itself (-C/-W).
final class BackgroundClient {
    private let run: CapturedProcess

    init(_ executable: String, _ arguments: [String], output: String) throws {
        run = try CapturedProcess(executable, arguments, outputPath: output)
    }

    /// Waits for the client to exit (bounded by its own -W) and returns what it printed.
    func finish() -> DeployTools.Result {
        let status = run.process.waitUntilExit()
        return DeployTools.Result(status: status, output: run.output)
    }

    deinit {
        if run.process.isRunning { run.process.send(SIGKILL); run.process.waitUntilExit() }
    }
}
