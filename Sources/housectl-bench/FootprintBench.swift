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
                     note: "5. `housectl serve` (embedded broker, --gpio sim): VmHWM after \(commands) ON/OFF commands (QoS 0 back to back); \(lost) commands without a state; of the peak, private (RssAnon) memory at the end: \(Spread(anon).text(1)) MB, the rest is mapped code of the binary and the shared libraries; the binary's pages are dropped from the page cache before the first daemon starts, as after a boot"),
            BenchRow(name: "5. daemon start-to-ready (ms)", ours: t.text(1), peer: "100 (goal)", ratio: String(format: "%.2fx", t.median / 100),
                     goal: "<= 100 ms", met: t.median <= 100 ? "yes" : "NO"),
        ]
    }

    struct Result { var readyMs: Double; var peakMB: Double; var anonMB: Double; var rate: Double; var lost: Int }

    static func once(commands: Int, housectl: String, root: String, web: Bool = false) async throws -> Result {
        let house = try await ServedHouse.start(housectl: housectl, root: root, web: web)
        defer { house.stop() }
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
        let anonKilobytes = house.status("RssAnon:") ?? .nan
        guard let kB = house.status("VmHWM:") else {
            throw ChildBroker.StartFailed(description: "cannot read /proc/\(house.process.processIdentifier)/status")
        }
        return Result(readyMs: house.readyMs, peakMB: kB / 1024, anonMB: anonKilobytes / 1024, rate: Double(r.states) / max(r.seconds, 1e-9),
                      lost: commands - r.states)
    }
}
