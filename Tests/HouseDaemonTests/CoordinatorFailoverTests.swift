import Foundation
import HouseBrokerTesting
import HouseCore
import HouseMQTT
import HouseTesting
import Testing
@testable import HouseDaemon

/// Three nodes of the example house on one broker: the coordinator dies (its connection dropped
/// without a DISCONNECT, so its last will fires), the next node takes over, and the old one
/// comes back as a follower.
@Suite(.serialized) struct CoordinatorFailoverTests {
    /// Tuesday 2026-11-24 06:29:57 in London (GMT): the morning routine is due at 06:30, in the gap.
    static let beforeMorning = Date(timeIntervalSince1970: 1_795_501_797)

    /// The example house with every node allowed to coordinate, pi-main first.
    static func house() throws -> HouseConfiguration {
        var config = try HouseFixtures.exampleConfiguration()
        config.coordination = CoordinationSettings(nodes: ["pi-main", "pi-bedroom", "pi-garage"])
        return config
    }

    @Test func theHouseKeepsWorkingWhenItsCoordinatorDies() async throws {
        try await withTestBroker { broker in
            let port = broker.port
            try await withController(configuration: try Self.house(), node: "pi-main", start: Self.beforeMorning, routines: true, brokerPort: port) { main in
                try await main.waitForCoordinator("pi-main")
                try await withController(configuration: try Self.house(), node: "pi-bedroom", start: Self.beforeMorning, routines: true, brokerPort: port) { bedroom in
                    try await withController(configuration: try Self.house(), node: "pi-garage", start: Self.beforeMorning, routines: true, brokerPort: port) { garage in
                        try await bedroom.waitForCoordinator("pi-main")
                        try await garage.waitForCoordinator("pi-main")
                        let mqtt = try await main.mqttClient()
                        let claims = try await mqtt.subscribe(to: "house/coordinator")
                        let runs = try await mqtt.subscribe(to: "house/routine/good-morning/run")

                        // pi-main dies: its connection drops without a DISCONNECT and it cannot come back.
                        await broker.cutOff(clientID: "housectl-pi-main")
                        try await main.waitUntil("pi-main stops coordinating") { !main.controller.coordination.isActing }
                        // A lease (6 s) and its margin later on the survivors' clocks, the first in line takes over.
                        bedroom.clock.advance(by: .milliseconds(6_700))
                        garage.clock.advance(by: .milliseconds(6_700))
                        let claim = try await claims.first("pi-bedroom's claim") {
                            (try? CoordinatorClaim.parse($0.payload))?.node == "pi-bedroom"
                        }
                        #expect(try CoordinatorClaim.parse(claim.payload).term == 2002, "round 2, pi-bedroom second in line")
                        try await bedroom.waitUntil("pi-bedroom coordinates") { bedroom.controller.coordination.isActing }
                        // pi-garage hears pi-bedroom's claim on its own connection, which may come later.
                        try await garage.waitUntil("pi-garage follows pi-bedroom") {
                            garage.controller.coordination.status.coordinator == "pi-bedroom"
                        }
                        #expect(!garage.controller.coordination.isActing)

                        // The morning routine fell due in the gap (06:30): caught up once, by pi-bedroom.
                        let run = try await runs.first("the morning run's claim") { !$0.retain }
                        #expect(try RoutineRunClaim.parse(run.payload).node == "pi-bedroom")
                        try await bedroom.waitUntil("the bedside lamp on") { bedroom.relayIsOn("bedroom-bedside-lamp") == true }
                        #expect(bedroom.edges(of: "bedroom-bedside-lamp").map(\.logical) == [true])

                        // A phrase after the takeover is answered (by pi-bedroom).
                        let reply = try await bedroom.client().send(.text("turn on the bedroom ceiling light"))
                        #expect(reply.status == .done, "\(reply.dialog)")
                        #expect(bedroom.edges(of: "bedroom-ceiling-light").map(\.logical) == [true])
                        // pi-main's own relays are refused with the reason, not sent into the void.
                        let kitchen = try await bedroom.client().send(.text("turn on the kitchen light"))
                        #expect(kitchen.dialog.contains("pi-main, which is offline"), "\(kitchen.dialog)")

                        // pi-main comes back: it sees the newer term and stays a follower; its own
                        // clock passing 06:30 runs nothing. (Each node has a clock of its own here:
                        // pi-main's moves less than a lease, as pi-bedroom's, which renews, stands still.)
                        await broker.reconnect(clientID: "housectl-pi-main")
                        try await main.waitUntil("pi-main follows pi-bedroom") {
                            main.controller.coordination.status.coordinator == "pi-bedroom"
                        }
                        main.clock.advance(by: .seconds(4))
                        _ = try await main.client().send(.intent(.query(QueryHouseStatusIntent(queryType: .mode))))
                        #expect(!main.controller.coordination.isActing)
                        #expect(main.edges(of: "kitchen-light").isEmpty, "pi-main ran no morning of its own")
                        #expect(bedroom.edges(of: "bedroom-bedside-lamp").map(\.logical) == [true], "the morning ran once")
                        #expect(bedroom.controller.coordination.isActing)
                        await mqtt.disconnect()
                    }
                }
            }
        }
    }

    /// A coordinator that shuts down releases its claim: the next node takes over at once, with no
    /// lease to wait out; a node that starts later and finds a coordinator does not take over.
    @Test func aCoordinatorThatStopsHandsTheHouseOverAtOnce() async throws {
        try await withTestBroker { broker in
            let port = broker.port
            try await withController(configuration: try Self.house(), node: "pi-bedroom", brokerPort: port) { bedroom in
                try await withController(configuration: try Self.house(), node: "pi-main", brokerPort: port) { main in
                    try await main.waitForCoordinator("pi-main")
                    try await bedroom.waitForCoordinator("pi-main")
                    try await withController(configuration: try Self.house(), node: "pi-garage", brokerPort: port) { garage in
                        try await garage.waitForCoordinator("pi-main")
                        #expect(!garage.controller.coordination.isActing)
                    }
                }
                // pi-main released the house as it stopped: pi-bedroom takes over without its clock moving.
                try await bedroom.waitForCoordinator("pi-bedroom")
                let reply = try await bedroom.client().send(.text("turn on the bedroom ceiling light"))
                #expect(reply.status == .done, "\(reply.dialog)")
            }
        }
    }

    /// A relay command another node sent twice under one id (a request retried after a takeover)
    /// is carried out once.
    @Test func aRepeatedRelayCommandIdIsCarriedOutOnce() async throws {
        try await withController(configuration: try Self.house(), node: "pi-main") { main in
            try await withController(configuration: try Self.house(), node: "pi-garage", brokerPort: main.port) { garage in
                let mqtt = try await garage.mqttClient()
                let on = #"{"device":"garage-light","id":"req-1/garage-light","state":"ON"}"#
                let off = #"{"device":"garage-light","id":"req-2/garage-light","state":"OFF"}"#
                // The first command again under its id (a retry after a takeover): not carried out
                // again; then a command for another relay, which comes after them all.
                let marker = #"{"device":"garden-pump","id":"req-3/garden-pump","state":"ON"}"#
                for (topic, payload) in [("house/node/pi-garage/relay", on), ("house/node/pi-garage/relay", off),
                                         ("house/node/pi-garage/relay", on), ("house/node/pi-garage/relay", marker)] {
                    try await mqtt.publish(to: topic, payload: payload, qos: .atLeastOnce)
                }
                try await garage.waitUntil("the marker's edge") { !garage.edges(of: "garden-pump").isEmpty }
                #expect(garage.edges(of: "garage-light").map(\.logical) == [true, false])
                await mqtt.disconnect()
            }
        }
    }
}
