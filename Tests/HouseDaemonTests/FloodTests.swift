import Foundation
import HouseMQTT
import HouseTesting
import Testing
@testable import HouseDaemon

/// A flood of commands (a runaway automation, a flow in a loop) loses none and holds nothing
/// without bound: the bus holds at most its capacity (beyond it a command is answered "busy"),
/// and the MQTT client's backlog of states holds the bus's consumer back (`waitForRoom`).
@Suite(.timeLimit(.minutes(2)))
struct FloodTests {
    @Test func tenThousandCommandsBackToBackLoseNoneInOrder() async throws {
        try await withController { f in
            let count = 10_000
            let mqtt = try await f.mqttClient()
            let states = try await mqtt.subscribe(to: "house/kitchen/kitchen-light/state", qos: .atLeastOnce)
            #expect(try await states.next("the retained state").string == "OFF")
            // Every command ON, OFF, ON... as fast as the client sends them, nobody waiting for
            // an answer: each one is a state, in order.
            for n in 0..<count {
                try mqtt.send(MQTTMessage(topic: "house/kitchen/kitchen-light/set", string: n % 2 == 0 ? "ON" : "OFF", qos: .atLeastOnce))
            }
            var received = 0
            var inOrder = true
            while received < count {
                let state = try await states.next("state \(received + 1) of \(count)", timeout: .seconds(60)).string
                if state != (received % 2 == 0 ? "ON" : "OFF") { inOrder = false }
                received += 1
            }
            #expect(inOrder, "the states came in the commands' order")
            #expect(f.edges(of: "kitchen-light").last?.logical == false, "the last command left the relay off")
            let bus = f.controller.busMostWaiting
            #expect(bus.count < bus.capacity, "the bus held \(bus.count) of its \(bus.capacity): no command was refused busy")
            await mqtt.disconnect()
        }
    }
}
