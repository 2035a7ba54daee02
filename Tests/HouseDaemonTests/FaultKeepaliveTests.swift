import Foundation
import HouseBroker
import HouseCore
import HouseMQTT
import HouseTesting
import Testing
@testable import HouseDaemon

/// A stalled broker (it stops reading, the TCP connection stays up) and a restarting Home
/// Assistant, seen from the controller.
@Suite(.serialized) struct FaultKeepaliveTests {
    /// The broker paused past the keepalive: the controller notices (no PINGRESP), keeps working
    /// offline with its messages queued, reconnects when the broker reads again, flushes what is
    /// within its time to live and counts what expired.
    ///
    /// libmosquitto's smallest keepalive is 5 s and it gives up after a second silent interval,
    /// so this scenario takes about 10 s of real time.
    @Test func theBrokerPausedPastTheKeepaliveIsNoticedAndTheQueueFlushedOrExpired() async throws {
        var config = try HouseFixtures.exampleConfiguration()
        config.mqtt.keepalive = 5
        try await withTestBroker { broker in
            try await withController(configuration: config, brokerPort: broker.port) { f in
                let client = f.controller.client
                let before = client.statistics
                await broker.pauseReading()
                try await withTimeout(.seconds(25), "the controller to notice the stalled broker") {
                    for await state in client.connectionStates() {
                        if case .connected = state { continue }
                        return
                    }
                }
                // Offline, the house still works; what it publishes waits in the queue.
                let outcome = await f.controller.submit(
                    .control(HouseControlIntent(room: "kitchen", action: .on, device: "kitchen-light")), source: .cli)
                #expect(outcome.status == .done)
                #expect(f.physicalLevel(of: "kitchen-light") == false)  // on (active low)
                // A message that may not wait at all expires instead of being sent late.
                let expiring = try await client.publish(to: "house/test/expiring", payload: "stale", qos: .atLeastOnce, timeToLive: .zero)
                #expect(expiring == .queued)

                await broker.resumeReading()
                try await broker.waitUntil(timeout: .seconds(20), "the kitchen light's state after the reconnect") {
                    $0.retained["house/kitchen/kitchen-light/state"]?.payloadString == "ON"
                }
                let after = client.statistics
                #expect(after.connectionLosses > before.connectionLosses)
                #expect(after.connects > before.connects)
                #expect(after.messagesFlushed > before.messagesFlushed)
                #expect(after.messagesExpired == before.messagesExpired + 1)
                let snapshot = await broker.snapshot()
                #expect(!snapshot.received.contains { $0.topic == "house/test/expiring" })
                #expect(snapshot.received.contains { $0.topic == "house/events" && $0.payloadString.contains("kitchen") })
            }
        }
    }

    /// Home Assistant restarting says `offline` then `online` on `homeassistant/status`: the
    /// controller sends every discovery message again.
    @Test func homeAssistantRestartingGetsTheDiscoveryAgain() async throws {
        try await withController { f in
            let mqtt = try await f.mqttClient()
            let prefix = try #require(f.controller.configuration.mqtt.discoveryPrefix)
            let discovery = HomeAssistantDiscovery(configuration: f.controller.configuration, node: f.controller.node,
                                                   layout: f.controller.layout, prefix: prefix)
            let switches = discovery.messages.filter { $0.topic.hasPrefix(prefix + "/switch/") && !$0.payload.isEmpty }.count
            #expect(switches > 0)
            let configs = try await mqtt.subscribe(to: prefix + "/switch/+/+/config")
            let first = try await withTimeout(.seconds(20), "the retained discovery of every relay") {
                var seen: [String: [UInt8]] = [:]
                for try await m in configs {
                    seen[m.topic] = m.payload
                    if seen.count >= switches { break }
                }
                return seen
            }
            #expect(first.count == switches)
            try await mqtt.publish(to: "homeassistant/status", payload: "offline", qos: .atLeastOnce)
            try await mqtt.publish(to: "homeassistant/status", payload: "online", qos: .atLeastOnce)
            let again = try await withTimeout(.seconds(20), "the discovery sent again") {
                var seen: [String: [UInt8]] = [:]
                for try await m in configs where !m.retain {
                    seen[m.topic] = m.payload
                    if seen.count >= switches { break }
                }
                return seen
            }
            #expect(Set(again.keys) == Set(first.keys))
            for (topic, payload) in again { #expect(first[topic] == payload, "\(topic)") }
            await mqtt.disconnect()
        }
    }
}
