import Foundation
import HouseCore
import HouseGPIO
import HouseMQTT
import HouseTesting
import Logging
import Testing
@testable import HouseDaemon

/// The example house's inputs on pi-main's simulated chip: the hall's wall button (line 17,
/// active-low: pressed = low) and the kitchen's back door contact (line 27, active-high: open =
/// high), through the controller: debounced, on their topics, as the house's state and answers,
/// and firing rules, also while the broker is down.
@Suite(.timeLimit(.minutes(1)))
struct InputEndToEndTests {
    @Test func aContactAndAWallButtonThroughTheController() async throws {
        try await withController { f in
            let mqtt = try await f.mqttClient()
            let door = try await mqtt.subscribe(to: "house/kitchen/back-door/state", qos: .atLeastOnce)
            let button = try await mqtt.subscribe(to: "house/hall/hall-button/event", qos: .atLeastOnce)
            let light = try await mqtt.subscribe(to: "house/hall/hall-light/state", qos: .atLeastOnce)
            #expect(try await door.next("the door's level at start").string == "OFF")
            _ = try await light.first("the hall light off at start") { $0.string == "OFF" }

            // The door opens: after the 50 ms debounce it is open, on its topic and in answers.
            f.chip.setInput(line: 27, active: true)
            f.clock.advance(by: .milliseconds(50))
            f.chip.nudge()
            _ = try await door.first("the door open") { $0.string == "ON" }
            let asked = try await f.client().send(.text("is the back door open"))
            #expect(asked.dialog == "The kitchen back door is open.", "\(asked.dialog)")
            let open = try await f.client().send(.text("open the back door"))
            #expect(open.status == .unsupported && open.dialog.contains("is a contact"), "\(open.dialog)")

            // A single press toggles the hall light (rule hall-wall-button), on pi-main itself.
            f.chip.press(line: 17, held: .milliseconds(120), clock: f.clock)
            let single = try await button.first("a single press") { _ in true }
            #expect(single.string == #"{"event_type":"single"}"#)
            _ = try await light.first("the hall light on, by the wall button") { $0.string == "ON" }
            #expect(f.edges(of: "hall-light").map(\.logical) == [true])

            // Held for 800 ms: a long press, reported while still held; it switches the light off.
            f.chip.setInput(line: 17, active: true)
            f.clock.advance(by: .milliseconds(800))
            f.chip.nudge()
            let long = try await button.first("a long press") { _ in true }
            #expect(long.string == #"{"event_type":"long"}"#)
            _ = try await light.first("the hall light off, by the long press") { $0.string == "OFF" }
            f.chip.setInput(line: 17, active: false)

            // A chattering contact: five edges within 20 ms, settling closed: one change.
            for (i, active) in [false, true, false, true, false].enumerated() {
                f.chip.setInput(line: 27, active: active)
                f.clock.advance(by: .milliseconds(i == 4 ? 50 : 4))
            }
            f.chip.nudge()
            _ = try await door.first("the door closed once") { $0.string == "OFF" }
            _ = try await f.client().send(.intent(.query(QueryHouseStatusIntent(queryType: .mode))))
            #expect(await f.controller.engine.state(of: "back-door") == .off)
            await mqtt.disconnect()
        }
    }

    /// A command's relay edge fires the device-state rules (through its own job on the bus): a
    /// rule on the kitchen light switching on switches the hall light on too.
    @Test func aCommandsRelayEdgeFiresTheDeviceStateRules() async throws {
        var configuration = try HouseFixtures.exampleConfiguration()
        configuration.rules.append(Rule(id: "kitchen-brings-hall", trigger: .deviceState(device: "kitchen-light", state: .on),
                                        intent: .control(room: nil, device: "hall-light", action: .on)))
        try await withController(configuration: configuration) { f in
            let mqtt = try await f.mqttClient()
            let hall = try await mqtt.subscribe(to: "house/hall/hall-light/state", qos: .atLeastOnce)
            _ = try await hall.first("the hall light off at start") { $0.string == "OFF" }
            let on = try await f.client().send(.text("turn on the kitchen light"))
            #expect(on.status == .done, "\(on.dialog)")
            _ = try await hall.first("the hall light on, by the kitchen light's rule") { $0.string == "ON" }
            #expect(f.edges(of: "hall-light").map(\.logical) == [true])
            #expect(await f.controller.engine.state(of: "hall-light") == .on)
            await mqtt.disconnect()
        }
    }

    /// A command's relay edge goes on the bus only when a rule watches the device: without one,
    /// each command is one job of the bus (the command told the house service its state
    /// already), and the state still goes out at the edge.
    @Test func aCommandsRelayEdgeIsNoJobWhenNoRuleWatchesTheDevice() async throws {
        try await withController { f in
            #expect(!f.controller.engine.stateWatchedDevices.contains("kitchen-light"))
            let mqtt = try await f.mqttClient()
            let state = try await mqtt.subscribe(to: "house/kitchen/kitchen-light/state", qos: .atLeastOnce)
            _ = try await state.first("the kitchen light off at start") { $0.string == "OFF" }
            let before = f.controller.busJobs
            for n in 0..<6 {
                let on = try await f.client().send(.text(n % 2 == 0 ? "turn on the kitchen light" : "turn off the kitchen light"))
                #expect(on.status == .done, "\(on.dialog)")
            }
            _ = try await state.first("the last command's state") { $0.string == "OFF" }
            #expect(f.edges(of: "kitchen-light").map(\.logical) == [true, false, true, false, true, false])
            #expect(f.controller.busJobs - before == 6, "one job per command")
            await mqtt.disconnect()
        }
    }

    /// A wall button must work without the network: the broker is gone (a closed port), and a
    /// press still switches the hall light, a relay of the same node.
    @Test func theWallButtonWorksWhileTheBrokerIsDown() async throws {
        let closed = try ClosedPort()
        let directory = NSTemporaryDirectory() + "housectl-input-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_795_521_600))
        let chip = SimulatedChip(clock: clock)
        let settings = ControllerSettings(
            configuration: try HouseFixtures.exampleConfiguration(), clock: clock, node: "pi-main",
            stateDirectory: directory, chip: chip, brokerOverride: (host: "127.0.0.1", port: closed.port), clientID: "housectl-pi-main",
            reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500)),
            phrases: try defaultPhrases(), routines: false, logger: Logger(label: "housectl"))
        let controller = try await HouseController.build(settings)
        #expect(try chip.info(line: 17).consumer == "housectl", "the inputs are requested as the controller is built")
        try await runController(controller) { controller in
            let donations = await controller.engine.donationStream()
            chip.press(line: 17, held: .milliseconds(120), clock: clock)
            let done = try await withTimeout(.seconds(10), "the rule's intent, with no broker") { () -> Donation? in
                for await donation in donations { return donation }
                return nil
            }
            #expect(done?.source == .rule)
            let line = try #require(controller.relayLayout?.channels.first { $0.device == "hall-light" }?.line)
            #expect(chip.edges.filter { $0.line == line && $0.kind == .set }.map(\.logical) == [true])
            #expect(await controller.engine.state(of: "hall-light") == .on)
        }
    }
}
