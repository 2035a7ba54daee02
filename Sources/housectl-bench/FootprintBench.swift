import Foundation
import HouseMQTT
import HouseTesting
import Synchronization

/// Row 5: the real `housectl serve` (embedded broker, simulated relays) on a temporary copy of
/// config/house.yaml with a free port: time from spawn to the "ready:" log line, and peak RSS
/// (VmHWM) after `commands` set commands.
enum FootprintBench {
    static func run(rounds: Int, commands: Int, housectl: String, root: String) async -> [BenchRow] {
        var ready: [Double] = []
        var rss: [Double] = []
        var anon: [Double] = []
        var lost = 0
        var failure: String?
        for round in 0..<rounds {
            do {
                let r = try await once(commands: commands, housectl: housectl, root: root)
                ready.append(r.readyMs)
                rss.append(r.peakMB)
                anon.append(r.anonMB)
                lost += r.lost
                progress("footprint round \(round + 1)/\(rounds): ready \(String(format: "%.1f", r.readyMs)) ms, peak RSS \(String(format: "%.1f", r.peakMB)) MB, \(Int(r.rate)) cmd/s")
            } catch {
                failure = "\(error)"
                progress("footprint failed: \(error)")
                break
            }
        }
        if let failure, ready.isEmpty {
            return [.unavailable("5. footprint", goal: "<= 20 MB, <= 100 ms", why: failure)]
        }
        let m = Spread(rss), t = Spread(ready)
        return [
            BenchRow(name: "5. daemon peak RSS (MB)", ours: m.text(1), peer: "20 (goal)", ratio: String(format: "%.2fx", m.median / 20),
                     goal: "<= 20 MB", met: m.median <= 20 ? "yes" : "NO",
                     note: "5. `housectl serve` (embedded broker, --gpio sim): VmHWM after \(commands) ON/OFF commands (QoS 0 back to back); \(lost) commands without a state; of the peak, private (RssAnon) memory at the end: \(Spread(anon).text(1)) MB, the rest is mapped code of the binary and the shared libraries"),
            BenchRow(name: "5. daemon start-to-ready (ms)", ours: t.text(1), peer: "100 (goal)", ratio: String(format: "%.2fx", t.median / 100),
                     goal: "<= 100 ms", met: t.median <= 100 ? "yes" : "NO"),
        ]
    }

    struct Result { var readyMs: Double; var peakMB: Double; var anonMB: Double; var rate: Double; var lost: Int }

    static func once(commands: Int, housectl: String, root: String) async throws -> Result {
        let port = try MosquittoBroker.freeLoopbackPort()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("housectl-bench-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("state"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A copy of the example house with the embedded broker on the free port (phrases beside it).
        let yaml = try String(contentsOfFile: root + "/config/house.yaml", encoding: .utf8)
        guard yaml.contains("\n  port: 1883\n") else { throw ChildBroker.StartFailed(description: "config/house.yaml: no `  port: 1883` under mqtt to replace") }
        try yaml.replacingOccurrences(of: "\n  port: 1883\n", with: "\n  port: \(port)\n")
            .write(to: directory.appendingPathComponent("house.yaml"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: root + "/config/phrases.yaml", toPath: directory.appendingPathComponent("phrases.yaml").path)
        let logURL = directory.appendingPathComponent("serve.log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)

        let p = Process()
        p.executableURL = URL(fileURLWithPath: housectl)
        p.arguments = ["serve", "--gpio", "sim", "--state-dir", directory.appendingPathComponent("state").path, "--node", "pi-main",
                       "--config", directory.appendingPathComponent("house.yaml").path, "--devices-dir", root + "/devices"]
        let output = try FileHandle(forWritingTo: logURL)
        p.standardOutput = output
        p.standardError = output
        p.standardInput = FileHandle.nullDevice
        let clock = ContinuousClock()
        let t0 = clock.now
        try p.run()
        try? output.close()
        defer {
            if p.isRunning { kill(p.processIdentifier, SIGKILL) }
            p.waitUntilExit()
        }
        // Watch the log for the "ready:" line (1 ms polls; the daemon writes its log unbuffered).
        var readyAt: ContinuousClock.Instant?
        while clock.now - t0 < .seconds(20) {
            if let data = FileManager.default.contents(atPath: logURL.path), data.range(of: Data(" ready: ".utf8)) != nil {
                readyAt = clock.now
                break
            }
            guard p.isRunning else { break }
            try await Task.sleep(for: .milliseconds(1))
        }
        guard let readyAt else {
            let log = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            throw ChildBroker.StartFailed(description: "housectl serve never logged ready: \(log.suffix(800))")
        }
        let readyMs = (readyAt - t0).inMilliseconds

        let pub = try await MQTTLoad.client(port: port, name: "fp-pub")
        let sub = try await MQTTLoad.client(port: port, name: "fp-sub")
        let subscription = try await sub.subscribe(to: ControllerBench.stateTopic, qos: .atLeastOnce)
        let r = try await MQTTLoad.commands(publisher: pub, topic: ControllerBench.setTopic, states: subscription, count: commands)
        var anonKilobytes = Double.nan
        await pub.disconnect()
        await sub.disconnect()
        anonKilobytes = readStatus("RssAnon:", pid: p.processIdentifier) ?? .nan
        guard let kB = readStatus("VmHWM:", pid: p.processIdentifier) else {
            throw ChildBroker.StartFailed(description: "cannot read /proc/\(p.processIdentifier)/status")
        }
        return Result(readyMs: readyMs, peakMB: kB / 1024, anonMB: anonKilobytes / 1024, rate: Double(r.states) / max(r.seconds, 1e-9),
                      lost: commands - r.states)
    }

    /// A kB figure of /proc/PID/status.
    static func readStatus(_ key: String, pid: Int32) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(key) {
            return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Double($0) }
        }
        return nil
    }
}
