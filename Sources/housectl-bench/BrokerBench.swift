import Foundation
import HouseMQTT

/// Row 4: `housectl broker` against mosquitto (and amqtt), each in its own process, run
/// alternately in the same run, loaded by our own client with MQTT 3.1.1; then the same load with
/// MQTT 5 against ours and mosquitto (row 4v5: its ratio must stay within 10% of 3.1.1's).
enum BrokerBench {
    struct Scenario: Hashable {
        var qos: MQTTQoS
        var subscribers: Int
        var label: String { "QoS\(qos.rawValue) 1->\(subscribers)" }
    }

    static let scenarios = [
        Scenario(qos: .atMostOnce, subscribers: 1), Scenario(qos: .atLeastOnce, subscribers: 1),
        Scenario(qos: .atMostOnce, subscribers: 10), Scenario(qos: .atLeastOnce, subscribers: 10),
    ]

    /// Figures of one broker over the rounds.
    struct Figures {
        var rates: [Scenario: [Double]] = [:]
        var lost: [Scenario: Int] = [:]
        var p50: [Double] = []
        var p99: [Double] = []
        /// Why rounds failed (a failed round is skipped; the broker is n/a only when all failed).
        var failures: [String] = []
        var failure: String? { p99.isEmpty ? (failures.first ?? "no rounds ran") : nil }
    }

    static func run(rounds: Int, count: Int, samples: Int, housectl: String, venv: String) async -> [BenchRow] {
        var figures: [String: Figures] = ["house": Figures(), "mosquitto": Figures(), "amqtt": Figures(),
                                          "house-v5": Figures(), "mosquitto-v5": Figures()]
        let names = ["house", "mosquitto", "amqtt"]
        for round in 0..<rounds {
            // Rotate the order each round so no broker always runs first (or after the same one).
            let order = (0..<names.count).map { names[($0 + round) % names.count] }
            for name in order {
                do {
                    let broker: ChildBroker
                    switch name {
                    case "house": broker = try await Brokers.house(housectl: housectl)
                    case "mosquitto": broker = try await Brokers.mosquitto()
                    default: broker = try await Brokers.amqtt(venv: venv)
                    }
                    defer { broker.kill() }
                    // amqtt (Python) is an order of magnitude slower: fewer messages, same shape.
                    let n = name == "amqtt" ? max(count / 10, 200) : count
                    for s in scenarios {
                        let perScenario = s.subscribers > 1 ? max(n / s.subscribers, 100) : n
                        let r = try await MQTTLoad.throughput(port: broker.port, subscribers: s.subscribers, qos: s.qos,
                                                              count: s.qos == .atMostOnce ? perScenario : perScenario / 2)
                        figures[name]!.rates[s, default: []].append(r.rate)
                        figures[name]!.lost[s, default: 0] += r.lost
                    }
                    let h = try await ControllerBench.hop(port: broker.port, samples: samples, qos: .atLeastOnce)
                    figures[name]!.p50.append(h.median)
                    figures[name]!.p99.append(h.percentile(99))
                    progress("broker \(name) round \(round + 1)/\(rounds): " + scenarios.map {
                        "\($0.label) \(Int(figures[name]!.rates[$0]!.last!))/s" }.joined(separator: ", ")
                        + String(format: ", p99 %.3f ms", h.percentile(99)))
                    // The same load with MQTT 5 (amqtt speaks 3.1.1 only).
                    guard name != "amqtt" else { continue }
                    let v5 = name + "-v5"
                    do {
                        for s in scenarios {
                            let perScenario = s.subscribers > 1 ? max(n / s.subscribers, 100) : n
                            let r = try await MQTTLoad.throughput(port: broker.port, subscribers: s.subscribers, qos: s.qos,
                                                                  count: s.qos == .atMostOnce ? perScenario : perScenario / 2, version: .v5)
                            figures[v5]!.rates[s, default: []].append(r.rate)
                            figures[v5]!.lost[s, default: 0] += r.lost
                        }
                        let h5 = try await ControllerBench.hop(port: broker.port, samples: samples, qos: .atLeastOnce, version: .v5)
                        figures[v5]!.p50.append(h5.median)
                        figures[v5]!.p99.append(h5.percentile(99))
                    } catch {
                        figures[v5]!.failures.append("\(error)")
                        progress("broker \(v5) round \(round + 1) failed: \(error)")
                    }
                } catch {
                    figures[name]!.failures.append("\(error)")
                    progress("broker \(name) round \(round + 1) failed: \(error)")
                }
            }
        }
        var rows: [BenchRow] = []
        rows += versionRows(ours311: figures["house"]!, peer311: figures["mosquitto"]!,
                            ours5: figures["house-v5"]!, peer5: figures["mosquitto-v5"]!)
        let ours = figures["house"]!
        for (peerName, goals) in [("mosquitto", true), ("amqtt", false)] {
            let peer = figures[peerName]!
            let label = goals ? "4. broker" : "4b. broker"
            if let failure = ours.failure ?? peer.failure {
                rows.append(.unavailable("\(label) vs \(peerName)", goal: goals ? ">= 0.5x, p99 <= 2x" : "-", why: failure))
                continue
            }
            for s in scenarios {
                let o = Spread(ours.rates[s] ?? []), p = Spread(peer.rates[s] ?? [])
                let ratio = o.median / p.median
                let lost = (ours.lost[s] ?? 0) + (peer.lost[s] ?? 0)
                rows.append(BenchRow(
                    name: "\(label) \(s.label) (msg/s)", ours: o.text(0), peer: p.text(0) + " \(peerName)",
                    ratio: String(format: "%.2fx", ratio), goal: goals ? ">= 0.5x" : "-",
                    met: goals ? (ratio >= 0.5 ? "yes" : "NO") : "-",
                    note: lost > 0 ? "4. \(s.label) vs \(peerName): \(ours.lost[s] ?? 0) lost on ours, \(peer.lost[s] ?? 0) on \(peerName) (QoS 0 may drop under overload)" : nil))
            }
            let failed = ours.failures.map { "ours: \($0)" } + peer.failures.map { "\(peerName): \($0)" }
            if !failed.isEmpty {
                rows[rows.count - 1].note = (rows[rows.count - 1].note.map { $0 + "; " } ?? "")
                    + "\(label): \(failed.count) failed round(s) skipped: " + failed.joined(separator: "; ")
            }
            let o50 = Spread(ours.p50), p50 = Spread(peer.p50), o99 = Spread(ours.p99), p99 = Spread(peer.p99)
            rows.append(BenchRow(name: "\(label) hop p50 (ms)", ours: o50.text(3), peer: p50.text(3) + " \(peerName)",
                                 ratio: String(format: "%.2fx", o50.median / p50.median), goal: "-", met: "-"))
            let r99 = o99.median / p99.median
            rows.append(BenchRow(name: "\(label) hop p99 (ms)", ours: o99.text(3), peer: p99.text(3) + " \(peerName)",
                                 ratio: String(format: "%.2fx", r99), goal: goals ? "<= 2x" : "-",
                                 met: goals ? (r99 <= 2 ? "yes" : "NO") : "-"))
        }
        return rows
    }

    /// Row 4v5: ours against mosquitto with MQTT 5, each ratio beside the 3.1.1 one of the same run;
    /// met when it is at least 0.9 times the 3.1.1 ratio (throughput) or at most 1.1 times (p99).
    static func versionRows(ours311: Figures, peer311: Figures, ours5: Figures, peer5: Figures) -> [BenchRow] {
        if let failure = ours5.failure ?? peer5.failure ?? ours311.failure ?? peer311.failure {
            return [.unavailable("4v5. broker MQTT 5 vs mosquitto", goal: ">= 0.9x the 3.1.1 ratio", why: failure)]
        }
        var rows: [BenchRow] = []
        for s in scenarios {
            let r5 = Spread(ours5.rates[s] ?? []).median / Spread(peer5.rates[s] ?? []).median
            let r311 = Spread(ours311.rates[s] ?? []).median / Spread(peer311.rates[s] ?? []).median
            rows.append(BenchRow(
                name: "4v5. broker MQTT 5 \(s.label) (msg/s)", ours: Spread(ours5.rates[s] ?? []).text(0),
                peer: Spread(peer5.rates[s] ?? []).text(0) + " mosquitto",
                ratio: String(format: "%.2fx (3.1.1: %.2fx)", r5, r311), goal: String(format: ">= %.2fx", 0.9 * r311),
                met: r5 >= 0.9 * r311 ? "yes" : "NO"))
        }
        let p99 = Spread(ours5.p99).median / Spread(peer5.p99).median
        let p99v311 = Spread(ours311.p99).median / Spread(peer311.p99).median
        rows.append(BenchRow(name: "4v5. broker MQTT 5 hop p99 (ms)", ours: Spread(ours5.p99).text(3),
                             peer: Spread(peer5.p99).text(3) + " mosquitto",
                             ratio: String(format: "%.2fx (3.1.1: %.2fx)", p99, p99v311), goal: String(format: "<= %.2fx", 1.1 * p99v311),
                             met: p99 <= 1.1 * p99v311 ? "yes" : "NO"))
        return rows
    }
}
