import Foundation
import HouseMQTT
import HouseTesting
import Synchronization

/// Row 5: the real `housectl serve` (embedded broker, simulated relays) on a temporary copy of
/// config/house.yaml with a free port, twice a round: with the page off (`--no-web`) and on
/// (`--web-port`, one client watching the live stream /api/events). Each gets `commands` ON/OFF
/// commands (QoS 0 back to back); then its private memory (RssAnon) is the goal, its peak
/// (VmHWM) information. Start-to-ready: spawn to the " ready: " log line, page off, the binary
/// in the page cache. Before the rounds, one start with nothing else (the binary read from disk
/// when the caller dropped its pages: `BinaryPages`) is information only, out of the median.
enum FootprintBench {
    static let offGoalMB = 10.0, onGoalMB = 12.0, readyGoalMs = 100.0

    static func run(rounds: Int, commands: Int, housectl: String, root: String) async -> [BenchRow] {
        var off: [Result] = [], on: [Result] = []
        var failure: String?
        var coldMs = Double.nan
        do {
            let first = try await ServedHouse.start(housectl: housectl, root: root, web: false)
            coldMs = first.readyMs
            first.stop()
            progress("footprint: first start \(format(coldMs, 1)) ms")
        } catch {
            return [.unavailable("5. footprint", goal: "<= 10 MB / 12 MB, <= 100 ms", why: "\(error)")]
        }
        for round in 0..<rounds {
            do {
                let o = try await once(commands: commands, housectl: housectl, root: root, web: false)
                let w = try await once(commands: commands, housectl: housectl, root: root, web: true)
                off.append(o)
                on.append(w)
                progress("footprint round \(round + 1)/\(rounds): ready \(format(o.readyMs, 1)) ms; RssAnon \(format(o.anonMB, 1)) MB page off, "
                         + "\(format(w.anonMB, 1)) MB page on; VmHWM \(format(o.peakMB, 1)) / \(format(w.peakMB, 1)) MB; \(Int(o.rate)) / \(Int(w.rate)) cmd/s")
            } catch {
                failure = "\(error)"
                progress("footprint failed: \(error)")
                break
            }
        }
        if let failure, off.isEmpty {
            return [.unavailable("5. footprint", goal: "<= 10 MB / 12 MB, <= 100 ms", why: failure)]
        }
        // What a language's grammar costs: the same daemon (page off) with each language's
        // community grammar, against one with none. English is the rounds' own (the default).
        var byLanguage: [String: [Result]] = ["en": off]
        for round in 0..<rounds {
            for language in [nil] + languages where language != "en" {
                do {
                    byLanguage[language ?? "", default: []].append(
                        try await once(commands: commands, housectl: housectl, root: root, web: false, language: language))
                } catch {
                    progress("footprint (\(language ?? "no grammar")) failed: \(error)")
                }
            }
            progress("footprint by language, round \(round + 1)/\(rounds): "
                     + byLanguage.sorted { $0.key < $1.key }.map { "\($0.key.isEmpty ? "none" : $0.key) \(format($0.value.last?.anonMB ?? .nan, 1)) MB" }.joined(separator: ", "))
        }
        let anonOff = Spread(off.map(\.anonMB)), anonOn = Spread(on.map(\.anonMB))
        let peakOff = Spread(off.map(\.peakMB)), peakOn = Spread(on.map(\.peakMB))
        let ready = Spread(off.map(\.readyMs)), readyOn = Spread(on.map(\.readyMs))
        let lost = off.reduce(0) { $0 + $1.lost } + on.reduce(0) { $0 + $1.lost }
        func goalRow(_ name: String, _ s: Spread, goal: Double, unit: String, digits: Int = 1, note: String? = nil) -> BenchRow {
            BenchRow(name: name, ours: s.text(digits), peer: "\(format(goal, 0)) (goal)", ratio: String(format: "%.2fx", s.median / goal),
                     goal: "<= \(format(goal, 0)) \(unit)", met: s.median <= goal ? "yes" : "NO", note: note)
        }
        return [
            goalRow("5. daemon RssAnon, page off (MB)", anonOff, goal: offGoalMB, unit: "MB",
                    note: "5. `housectl serve` (embedded broker, --gpio sim): private memory (RssAnon of /proc/PID/status) after \(commands) ON/OFF "
                        + "commands (QoS 0 back to back), with --no-web, and with --web-port and one client watching /api/events "
                        + "(reading every event) before and during the commands; \(lost) commands without a state. VmHWM (peak RSS, "
                        + "information): the same daemons, mapped code of the binary and the shared libraries included; the binary's "
                        + "pages are dropped from the page cache before the first daemon, as after a boot. Start-to-ready: spawn to "
                        + "the \" ready: \" log line, page off, binary in the page cache (page on: \(readyOn.text(1)) ms); a first "
                        + "start before the rounds, the binary read from disk: \(format(coldMs, 1)) ms"),
            goalRow("5. daemon RssAnon, page on (MB)", anonOn, goal: onGoalMB, unit: "MB"),
            BenchRow(name: "5. daemon VmHWM, page off (MB)", ours: peakOff.text(1), peer: "-", ratio: "-", goal: "- (info)", met: "-"),
            BenchRow(name: "5. daemon VmHWM, page on (MB)", ours: peakOn.text(1), peer: "-", ratio: "-", goal: "- (info)", met: "-"),
            goalRow("5. daemon start-to-ready (ms)", ready, goal: readyGoalMs, unit: "ms"),
        ] + languageRows(byLanguage)
    }

    /// The community grammars whose cost row 5 reports.
    static let languages = ["en", "de", "fr"]
    static let languageGoalMB = 5.0

    /// Per language: RssAnon with its grammar minus RssAnon with none (goal), and start-to-ready.
    static func languageRows(_ results: [String: [Result]]) -> [BenchRow] {
        guard let none = results[""], !none.isEmpty else { return [] }
        let base = Spread(none.map(\.anonMB)).median
        var rows = [BenchRow(name: "5. daemon RssAnon, no grammar (MB)", ours: Spread(none.map(\.anonMB)).text(1), peer: "-", ratio: "-",
                             goal: "- (info)", met: "-")]
        for language in languages {
            guard let r = results[language], !r.isEmpty else { continue }
            let extra = Spread(r.map { $0.anonMB - base })
            rows.append(BenchRow(name: "5. RssAnon of the \(language) grammar (MB)", ours: extra.text(2), peer: "\(format(languageGoalMB, 0)) (goal)",
                                 ratio: String(format: "%.2fx", extra.median / languageGoalMB), goal: "<= \(format(languageGoalMB, 0)) MB",
                                 met: extra.median <= languageGoalMB ? "yes" : "NO"))
            rows.append(BenchRow(name: "5. start-to-ready, \(language) grammar (ms)", ours: Spread(r.map(\.readyMs)).text(1), peer: "-",
                                 ratio: "-", goal: "- (info)", met: "-"))
        }
        return rows
    }

    struct Result { var readyMs: Double; var peakMB: Double; var anonMB: Double; var rate: Double; var lost: Int }

    /// A daemon (the page on with a client watching the live stream, or off; the grammar of
    /// `language`, none for nil), `commands` commands, its memory; then it is stopped.
    static func once(commands: Int, housectl: String, root: String, web: Bool, language: String? = "en") async throws -> Result {
        let house = try await ServedHouse.start(housectl: housectl, root: root, web: web, language: language)
        defer { house.stop() }
        var watcher: EventStream?
        defer { watcher?.close() }
        if let port = house.webPort {
            let events = try EventStream(port: port)
            watcher = events
            guard await events.wait(forState: nil, after: 0, timeout: .seconds(10)) != nil else {
                throw ChildBroker.StartFailed(description: "the page's live stream sent no first state")
            }
        }
        return try await flood(house, commands: commands)
    }

    /// `commands` ON/OFF commands back to back, then the daemon's peak and private memory.
    static func flood(_ house: ServedHouse, commands: Int) async throws -> Result {
        let pub = try await MQTTLoad.client(port: house.mqttPort, name: "fp-pub")
        let sub = try await MQTTLoad.client(port: house.mqttPort, name: "fp-sub")
        let subscription = try await sub.subscribe(to: ControllerBench.stateTopic, qos: .atLeastOnce)
        let r = try await MQTTLoad.commands(publisher: pub, topic: ControllerBench.setTopic, states: subscription, count: commands)
        await pub.disconnect()
        await sub.disconnect()
        guard let anonKilobytes = house.status("RssAnon:"), let kB = house.status("VmHWM:") else {
            throw ChildBroker.StartFailed(description: "cannot read /proc/\(house.process.processIdentifier)/status")
        }
        return Result(readyMs: house.readyMs, peakMB: kB / 1024, anonMB: anonKilobytes / 1024, rate: Double(r.states) / max(r.seconds, 1e-9),
                      lost: commands - r.states)
    }
}
