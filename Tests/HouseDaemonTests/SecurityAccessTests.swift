import Foundation
import HouseBroker
import HouseCore
import HouseMQTT
import HouseTesting
import Testing
@testable import HouseDaemon

/// What the house refuses: `HouseBroker` enforcing the ACL shipped in deploy/mosquitto/acl, and
/// devices with `confirm: true` never actuated by a plain `set` from a source the permissions do
/// not allow.
@Suite(.serialized) struct SecurityAccessTests {
    /// The password file with the daemon's and an automation user's plain passwords.
    static let passwords = "housectl:daemon-pw\nnodered:automation-pw\n"

    /// A HouseBroker with `passwords` and `acl`, and the example house configured to log in to it as
    /// the `housectl` user (its password in a file).
    static func withPasswordBroker(
        acl: AccessControlList, _ body: @Sendable (HouseBroker, HouseConfiguration) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("housectl-acl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let daemonPassword = directory.appendingPathComponent("pw").path
        try "daemon-pw\n".write(toFile: daemonPassword, atomically: true, encoding: .utf8)
        var config = try HouseFixtures.exampleConfiguration()
        config.mqtt.username = "housectl"
        config.mqtt.passwordFile = daemonPassword
        try await withTestBroker(configure: {
            $0.passwordFile = try? PasswordFile(contents: Self.passwords)
            $0.allowAnonymous = false
            $0.accessControl = acl
        }) { broker in
            try await body(broker, config)
        }
    }

    static func client(_ port: Int, user: String, password: String) async throws -> MQTTClient {
        let client = try MQTTClient(configuration: MQTTConfiguration(
            host: "127.0.0.1", port: port, credentials: MQTTCredentials(username: user, password: .literal(password))))
        try await client.connect()
        return client
    }

    @Test func houseBrokerEnforcesTheDeployACLForAutomationUsers() async throws {
        let acl = try AccessControlList(path: HouseFixtures.repositoryRoot + "/deploy/mosquitto/acl")
        try await Self.withPasswordBroker(acl: acl) { broker, config in
            try await withController(configuration: config, brokerPort: broker.port) { f in
                let nodered = try await Self.client(broker.port, user: "nodered", password: "automation-pw")
                // Reading state is allowed; reading other users' commands is not.
                let state = try await nodered.subscribe(to: "house/kitchen/kitchen-light/state")
                await #expect(throws: MQTTError.self) { _ = try await nodered.subscribe(to: "house/+/+/set") }
                // Commands on set topics work.
                try await nodered.publish(to: "house/kitchen/kitchen-light/set", payload: #"{"id":"acl-1","state":"ON"}"#, qos: .atLeastOnce)
                _ = try await state.first("the kitchen light on") { $0.string == "ON" }
                #expect(f.edges(of: "kitchen-light").count == 1)
                // Forged state, node status, discovery and peer relay commands are dropped, and
                // the sender hears so (PUBACK "not authorized").
                let deniedBefore = await broker.snapshot().statistics.publishesDenied
                for topic in ["house/kitchen/kitchen-light/state", "house/node/pi-main/status",
                              "homeassistant/switch/pi-main/kitchen_light/config", "house/node/pi-main/relay",
                              "house/mode/state"] {
                    await #expect(throws: MQTTError.publishRefused(reason: .notAuthorized)) {
                        try await nodered.publish(to: topic, payload: "OFF", qos: .atLeastOnce, retain: true)
                    }
                }
                let snapshot = await broker.snapshot()
                #expect(snapshot.statistics.publishesDenied - deniedBefore == 5)
                #expect(snapshot.retained["house/kitchen/kitchen-light/state"]?.payloadString == "ON")
                #expect(snapshot.retained["house/node/pi-main/status"]?.payloadString == "online")
                // An intent request gets its reply on the response topic the user may read.
                let responses = try await nodered.subscribe(to: "house/intent/response/acl-2")
                try await nodered.publish(to: "house/intent/request", payload: #"{"id":"acl-2","text":"turn off the kitchen light"}"#, qos: .atLeastOnce)
                let reply = try await responses.nextReply("the intent reply")
                #expect(reply.status == .done)
                #expect(f.edges(of: "kitchen-light").count == 2)
                await nodered.disconnect()

                // An unknown user and a wrong password are refused at CONNECT.
                await #expect(throws: MQTTError.self) { _ = try await Self.client(broker.port, user: "nodered", password: "nope") }
                await #expect(throws: MQTTError.self) { _ = try await Self.client(broker.port, user: "mallory", password: "automation-pw") }
            }
        }
    }

    /// A broker whose ACL refuses the daemon the topics of its rules and remote devices: those
    /// are disabled (and logged), the rest of the topic API still works.
    @Test func refusedRuleSubscriptionsDoNotTakeTheTopicAPIDown() async throws {
        let acl = try AccessControlList(contents: "user housectl\ntopic readwrite house/#\ntopic readwrite homeassistant/#\n")
        try await Self.withPasswordBroker(acl: acl) { broker, config in
            try await withController(configuration: config, brokerPort: broker.port) { f in
                let client = DaemonClient(host: "127.0.0.1", port: broker.port,
                                          credentials: MQTTCredentials(username: "housectl", password: .literal("daemon-pw")),
                                          timeout: .seconds(10))
                let reply = try await client.send(.text("turn on the kitchen light"))
                #expect(reply.status == .done)
                #expect(f.edges(of: "kitchen-light").count == 1)
                let subscriptions = await broker.snapshot().sessions["housectl-pi-main"]?.subscriptions ?? [:]
                #expect(subscriptions["house/kitchen/kitchen-light/set"] != nil)
                #expect(subscriptions["zigbee2mqtt/hall-button/action"] == nil)
            }
        }
    }

    /// The garage door (`confirm: true`) is on node pi-garage and MQTT may not switch it: no
    /// payload on its set topic moves it, with or without `confirm`.
    @Test func aConfirmDeviceDeniedToMQTTIsNeverActuatedFromItsSetTopic() async throws {
        try await withController(node: "pi-garage") { f in
            #expect(f.physicalLevel(of: "garage-door") != nil)
            let mqtt = try await f.mqttClient()
            let replies = try await mqtt.subscribe(to: "test/garage/replies")
            // A plain ON first; the replies below come after it (one topic, handled in order).
            try await mqtt.publish(to: "house/garage/garage-door/set", payload: "ON", qos: .atLeastOnce)
            var statuses: [String] = []
            for (i, state) in ["ON", "TOGGLE", "ON"].enumerated() {
                let confirm = i == 2 ? #","confirm":true"# : ""
                try await mqtt.publish(to: "house/garage/garage-door/set",
                                       payload: #"{"id":"g-\#(i)","state":"\#(state)"\#(confirm),"reply_to":"test/garage/replies"}"#,
                                       qos: .atLeastOnce)
                let reply = try await replies.nextReply("the garage door reply")
                statuses.append(reply.status.rawValue)
            }
            try await mqtt.publish(to: "house/garage/garage-light/set", payload: #"{"id":"g-light","state":"ON","reply_to":"test/garage/replies"}"#, qos: .atLeastOnce)
            let light = try await replies.nextReply("the garage light reply")
            #expect(light.status == .done)  // the same node obeys what MQTT may switch
            #expect(!statuses.contains("done"), "\(statuses)")
            #expect(f.edges(of: "garage-door").isEmpty)
            let history = try f.controller.store.history()
            #expect(history.filter { $0.summary.contains("garage-door") }.count == 4)
            #expect(!history.contains { $0.summary.contains("garage-door") && $0.outcome == "done" })
            await mqtt.disconnect()
        }
    }

    /// The bathroom heater (`confirm: true`, MQTT has `confirm_devices: false`): a plain set is
    /// never obeyed, nor one claiming `confirm`; the CLI, which may confirm, can.
    @Test func aConfirmDeviceNeedsASourceAllowedToConfirm() async throws {
        try await withController { f in
            let mqtt = try await f.mqttClient()
            let replies = try await mqtt.subscribe(to: "test/heater/replies")
            for (i, payload) in [#""state":"ON""#, #""state":"ON","confirm":true"#].enumerated() {
                try await mqtt.publish(to: "house/bathroom/bathroom-heater/set",
                                       payload: #"{"id":"h-\#(i)",\#(payload),"reply_to":"test/heater/replies"}"#, qos: .atLeastOnce)
                let reply = try await replies.nextReply("the heater reply")
                #expect(reply.status != .done, "\(payload): \(reply.status)")
            }
            #expect(f.edges(of: "bathroom-heater").isEmpty)
            let heaterOn = HouseIntent.control(HouseControlIntent(room: "bathroom", action: .on, device: "heater"))
            let yes = try await f.client().send(.intent(heaterOn), answers: IntentAnswers(confirmed: true))
            #expect(yes.status == .done)
            #expect(f.edges(of: "bathroom-heater").count == 1)
            await mqtt.disconnect()
        }
    }

    /// What Home Assistant's switch does with the heater: ON is refused (MQTT may not confirm),
    /// the true state goes out again at once (HA's optimistic switch snaps back) and the refusal
    /// is on `house/events` with its reason; OFF, the heater's safe state, is obeyed without a yes.
    @Test func homeAssistantSwitchesTheHeaterOffButItsRefusedOnSnapsBack() async throws {
        try await withController { f in
            let mqtt = try await f.mqttClient()
            let states = try await mqtt.subscribe(to: "house/bathroom/bathroom-heater/state", qos: .atLeastOnce)
            let events = try await mqtt.subscribe(to: "house/events", qos: .atLeastOnce)
            #expect(try await states.next("the retained heater state").string == "OFF")
            try await mqtt.publish(to: "house/bathroom/bathroom-heater/set", payload: "ON", qos: .atLeastOnce)
            let snapBack = try await states.next("the heater state published again")
            #expect(snapBack.string == "OFF")
            let refusal = try JSONDecoder().decode(DonationEvent.self, from: Data(try await events.next("the refusal").payload))
            #expect(refusal.outcome == .refused)
            #expect(refusal.source == .mqtt)
            #expect(refusal.commands.isEmpty)
            #expect(refusal.parameters["device"] == "bathroom-heater")
            #expect(refusal.dialog.contains("needs a person to confirm"), "\(refusal.dialog)")
            #expect(f.edges(of: "bathroom-heater").isEmpty)

            let heaterOn = HouseIntent.control(HouseControlIntent(room: "bathroom", action: .on, device: "heater"))
            #expect(try await f.client().send(.intent(heaterOn), answers: IntentAnswers(confirmed: true)).status == .done)
            #expect(try await states.next("the heater on").string == "ON")
            try await mqtt.publish(to: "house/bathroom/bathroom-heater/set", payload: "OFF", qos: .atLeastOnce)
            #expect(try await states.next("the heater off from MQTT").string == "OFF")
            #expect(f.edges(of: "bathroom-heater").count == 2)
            await mqtt.disconnect()
        }
    }
}
