import Foundation
import HouseHomeKit
import HouseHomeKitTesting
import HouseTesting

/// Row 11: Apple Home's way to the relay. The real `housectl serve` with its HomeKit bridge
/// (example house, `--gpio sim`): one controller paired, two verified sessions of it (an iPhone's
/// Home app and a home hub, say); one writes the kitchen light's On, the other is subscribed to
/// it, and a sample is the time from the write to the other's event (the bridge tells the event
/// once the command is carried out: the relay has switched). Its peer is the same command through
/// MQTT on the same daemon: `set` until the retained `state` (row 1's measure).
enum HomeKitBench {
    static func run(rounds: Int, samples: Int, housectl: String, root: String) async -> [BenchRow] {
        var ours50: [Double] = [], ours99: [Double] = [], peer50: [Double] = [], peer99: [Double] = []
        do {
            for round in 0..<rounds {
                let house = try await ServedHouse.start(housectl: housectl, root: root, web: false, homeKit: true, language: nil)
                defer { house.stop() }
                guard let port = house.homeKitPort else { throw ChildBroker.StartFailed(description: "the bridge has no port") }
                // Alternate which side goes first.
                let hap: Samples, mqtt: Samples
                if round % 2 == 0 {
                    hap = try await withTimeout(.seconds(120), "HomeKit samples") { try await writesToEvents(port: port, samples: samples) }
                    mqtt = try await ControllerBench.setToState(port: house.mqttPort, samples: samples)
                } else {
                    mqtt = try await ControllerBench.setToState(port: house.mqttPort, samples: samples)
                    hap = try await withTimeout(.seconds(120), "HomeKit samples") { try await writesToEvents(port: port, samples: samples) }
                }
                ours50.append(hap.median); ours99.append(hap.percentile(99))
                peer50.append(mqtt.median); peer99.append(mqtt.percentile(99))
                progress("homekit round \(round + 1)/\(rounds): write->event p50 \(format(hap.median, 3)) ms, MQTT set->state p50 \(format(mqtt.median, 3)) ms")
            }
        } catch {
            progress("homekit failed: \(error)")
            return [.unavailable("11. HomeKit write -> event", goal: "-", why: "\(error)")]
        }
        func row(_ name: String, _ ours: [Double], _ peer: [Double], note: String? = nil) -> BenchRow {
            let o = Spread(ours), p = Spread(peer)
            return BenchRow(name: name, ours: o.text(3), peer: "\(p.text(3)) MQTT set->state", ratio: String(format: "%.2fx", o.median / p.median),
                            goal: "- (info)", met: "-", note: note)
        }
        return [
            row("11. HomeKit write->relay->event p50 (ms)", ours50, peer50,
                note: "11. `housectl serve` with its HomeKit bridge (example house, --gpio sim): one pairing, two encrypted sessions; one writes the kitchen light's On (PUT /characteristics), the other is subscribed and a sample ends at its EVENT (sent once the relay has switched); \(samples) a round after 5 warm-up ones. Peer: the same daemon, `set` until the retained `state`, QoS 1."),
            row("11. HomeKit write->relay->event p99 (ms)", ours99, peer99),
        ]
    }

    /// Pairs a controller, opens a writer's and a listener's session, and times `samples` writes
    /// of the kitchen light's On (alternating, from the opposite of its state: each one an edge)
    /// until the listener's event with that value (ms).
    static func writesToEvents(port: Int, samples: Int) async throws -> Samples {
        let controller = HAPTestController(id: "bench")
        let accessoryKey = try await HAPTestSession.connect(port: port) { session -> [UInt8] in
            guard case .paired(_, let key) = try await session.pairSetup(controller, code: ServedHouse.homeKitCode) else {
                throw ChildBroker.StartFailed(description: "pair-setup with the bridge was refused")
            }
            return key
        }
        let clock = ContinuousClock()
        return try await HAPTestSession.connect(port: port) { listener in
            try await verify(&listener, controller, accessoryKey)
            let accessories = try await listener.request("GET", "/accessories")
            let aid = try kitchenLight(in: accessories.body)
            guard try await listener.subscribe(aid: aid, iid: onIID).status == 204 else {
                throw ChildBroker.StartFailed(description: "the bridge refused the subscription")
            }
            let wasOn = try await listener.request("GET", "/characteristics?id=\(aid).\(onIID)").text.contains("\"value\":true")
            return try await HAPTestSession.connect(port: port) { writer in
                try await verify(&writer, controller, accessoryKey)
                let warmup = 5
                var kept: [Double] = []
                for i in 0..<(samples + warmup) {
                    let value = (i % 2 == 0) != wasOn ? "true" : "false"
                    let t0 = clock.now
                    try await writer.sendWrite(aid: aid, iid: onIID, value: value)
                    let event = try await listener.event()
                    let t = clock.now
                    guard event.text.contains("\"value\":\(value)") else { throw ChildBroker.StartFailed(description: "an event of another value: \(event.text)") }
                    guard try await writer.response().status == 204 else { throw ChildBroker.StartFailed(description: "the write was refused") }
                    if i >= warmup { kept.append((t - t0).inMilliseconds) }
                }
                return Samples(kept)
            }
        }
    }

    /// A Lightbulb's On (iid 10 in the bridge's service layout).
    static let onIID = 10

    static func verify(_ session: inout HAPTestSession, _ controller: HAPTestController, _ key: [UInt8]) async throws {
        guard case .verified = try await session.pairVerify(controller, accessoryKey: key) else {
            throw ChildBroker.StartFailed(description: "pair-verify with the bridge was refused")
        }
    }

    /// The aid of the kitchen light in `GET /accessories` (its SerialNumber is its device id).
    static func kitchenLight(in body: [UInt8]) throws -> Int {
        let json = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        for accessory in json?["accessories"] as? [[String: Any]] ?? [] {
            let characteristics = (accessory["services"] as? [[String: Any]] ?? []).flatMap { $0["characteristics"] as? [[String: Any]] ?? [] }
            if characteristics.contains(where: { $0["type"] as? String == "30" && $0["value"] as? String == ControllerBench.device.rawValue }),
               let aid = accessory["aid"] as? Int {
                return aid
            }
        }
        throw ChildBroker.StartFailed(description: "no \(ControllerBench.device) among the bridge's accessories")
    }
}
