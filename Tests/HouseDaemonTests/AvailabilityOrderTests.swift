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
