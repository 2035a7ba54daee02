import Foundation
import HouseCore
import HouseTesting

/// The real `housectl serve` (embedded broker, simulated relays) on a temporary copy of
/// config/house.yaml with a free MQTT port and without its routines' runs, and the page on a free
/// port or off, the HomeKit bridge on a free port or off: what rows 5, 8 and 11 measure. `stop()`
/// kills it and removes its directory.
///
/// The page gets a free port chosen here rather than `--web-port 0`: the same page, and its port
/// known without reading it from a log line.
struct ServedHouse {
    let process: SpawnedProcess
    let directory: URL
    let mqttPort: Int
    /// The page's port; nil when it is off.
    let webPort: Int?
    /// The HomeKit bridge's port (on 127.0.0.1, its setup code `homeKitCode`); nil when it is off.
    let homeKitPort: Int?
    static let homeKitCode = "482-91-035"
    /// From spawn to the "ready:" log line.
    let readyMs: Double

    /// `language`: the house's (`house.language`), its community grammar read from the
    /// checkout's .cache/intents as `make run` reads it; nil: no grammar, our own phrases only.
    static func start(housectl: String, root: String, web: Bool, homeKit: Bool = false, language: String? = "en") async throws -> ServedHouse {
        let port = try MosquittoBroker.freeLoopbackPort()
        let webPort = web ? try MosquittoBroker.freeLoopbackPort() : nil
        let homeKitPort = homeKit ? try MosquittoBroker.freeLoopbackPort() : nil
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("housectl-bench-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("state"), withIntermediateDirectories: true)
        // A copy of the example house with the embedded broker on the free port (phrases beside
        // it), and no routine runs: what the daemon does at start-up does not depend on the hour.
        var text = try HouseFixtures.exampleHouseText(root: root, mqttPort: port, routines: .withoutRuns)
        if let language { text = text.replacingOccurrences(of: "\nhouse:\n", with: "\nhouse:\n  language: \(language)\n") }
        if let homeKitPort {
            let code = directory.appendingPathComponent("homekit-code").path
            try homeKitCode.write(toFile: code, atomically: true, encoding: .utf8)
            text += "\nhomekit: {enabled: true, bind: 127.0.0.1, port: \(homeKitPort), pin_file: \(code)}\n"
        }
        try text.write(to: directory.appendingPathComponent("house.yaml"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: root + "/config/phrases.yaml", toPath: directory.appendingPathComponent("phrases.yaml").path)
        let logURL = directory.appendingPathComponent("serve.log")
        let arguments = ["serve", "--gpio", "sim", "--state-dir", directory.appendingPathComponent("state").path, "--node", "pi-main",
                       "--config", directory.appendingPathComponent("house.yaml").path, "--devices-dir", root + "/devices"]
            + (webPort.map { ["--web-port", "\($0)"] } ?? ["--no-web"])
        let grammar = language == nil ? "/nonexistent" : root + "/.cache/intents/\(CommunityGrammar.version)"
        let clock = ContinuousClock()
        let t0 = clock.now
        let p = try CapturedProcess(housectl, arguments, outputPath: logURL.path, environment: ["HOUSECTL_GRAMMAR_DIR": grammar]).process
        // Watch the log for the " ready: " line (1 ms polls; the daemon writes its log unbuffered).
        var readyAt: ContinuousClock.Instant?
        while clock.now - t0 < .seconds(20) {
            if let data = FileManager.default.contents(atPath: logURL.path), data.range(of: Data(" ready: ".utf8)) != nil {
                readyAt = clock.now
                break
            }
            guard p.isRunning else { break }
            try await Task.sleep(for: .milliseconds(1))
        }
        // Then the page and the bridge, when they are on: their ports accepting connections (not
        // a log line's wording).
        for listener in [webPort, homeKitPort].compactMap({ $0 }) where readyAt != nil {
            while !MosquittoBroker.acceptsConnections(port: listener) {
                guard p.isRunning, clock.now - t0 < .seconds(20) else { readyAt = nil; break }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        let house = ServedHouse(process: p, directory: directory, mqttPort: port, webPort: webPort, homeKitPort: homeKitPort,
                                readyMs: readyAt.map { ($0 - t0).inMilliseconds } ?? .nan)
        guard readyAt != nil else {
            let log = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            house.stop()
            throw ChildBroker.StartFailed(description: "housectl serve never logged ready\(web || homeKit ? " or a listener of it never listened" : ""): \(log.suffix(800))")
        }
        return house
    }

    func stop() {
        process.send(SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A kB figure of /proc/PID/status ("VmHWM:", "RssAnon:").
    func status(_ key: String) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(key) {
            return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Double($0) }
        }
        return nil
    }
}
