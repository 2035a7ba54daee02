import Foundation
import HouseBroker
import HouseCore
import HouseMQTT
import HouseTesting
import Testing

/// A node says `online` only after its real states are out: a subscriber watching from before
/// the controller starts (as Home Assistant does) sees every relay state of the node before the
/// node's `online`, so it never takes the broker's old retained states for current ones.
@Suite("Availability after the states", .timeLimit(.minutes(1)))
struct AvailabilityOrderTests {
    @Test func theNodeSaysOnlineOnlyAfterItsStates() async throws {
        try await withTestBroker { broker in
            let watcher = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: broker.port, clientID: "watcher"))
            try await watcher.connect()
            let house = try await watcher.subscribe(to: "house/#", qos: .atLeastOnce)
            let config = try HouseFixtures.exampleConfiguration()
            let relays = Set(config.devices.filter { $0.relay?.node == "pi-main" }.map { "house/\($0.room)/\($0.id)/state" })
            #expect(relays.count >= 5)
            try await withController(brokerPort: broker.port) { _ in
                var statesBefore: Set<String> = []
                while true {
                    let m = try await house.next("the node's online status")
                    if m.topic == "house/node/pi-main/status" {
                        #expect(m.string == "online")
                        break
                    }
                    if m.topic.hasSuffix("/state") { statesBefore.insert(m.topic) }
                }
                #expect(relays.isSubset(of: statesBefore), "missing before online: \(relays.subtracting(statesBefore).sorted())")
            }
            await watcher.disconnect()
        }
    }
}

/// A device removed from the configuration loses its Home Assistant entity on the next start,
/// even on a broker that forgot the retained discovery (the embedded broker keeps none across
/// its restarts): the state store remembers which entities the node announced.
@Suite("Discovery of removed devices", .timeLimit(.minutes(1)))
final class RemovedDeviceDiscoveryTests {
    let directory = NSTemporaryDirectory() + "housectl-discovery-\(UUID().uuidString)"
    deinit { try? FileManager.default.removeItem(atPath: directory) }

    @Test func aRemovedDeviceIsClearedOnAFreshBrokerToo() async throws {
        let full = try HouseFixtures.exampleConfiguration()
        try await withController(configuration: full, stateDirectory: directory) { _ in }
        var smaller = full
        smaller.devices.removeAll { $0.id == "office-fan" }
        for i in smaller.modes.indices { smaller.modes[i].devices["office-fan"] = nil }
        let removed = "homeassistant/fan/housectl_pi_main/office_fan/config"
        try await withTestBroker { broker in  // a broker that never saw the fan's entity
            let watcher = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: broker.port, clientID: "ha"))
            try await watcher.connect()
            let configs = try await watcher.subscribe(to: "homeassistant/#", qos: .atLeastOnce)
            try await withController(configuration: smaller, stateDirectory: directory, brokerPort: broker.port) { _ in
                let cleared = try await configs.first("the removed fan's entity cleared") { $0.topic == removed }
                #expect(cleared.payload.isEmpty)
            }
            await watcher.disconnect()
        }
    }
}
