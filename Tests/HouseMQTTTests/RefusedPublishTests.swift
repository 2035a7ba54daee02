import Foundation
import HouseBroker
import HouseTesting
import Testing
@testable import HouseMQTT

/// A publish an MQTT 5 broker refuses (PUBACK or PUBREC with a reason code of 0x80 or more: an
/// ACL, a quota) is not a delivery: whoever awaits it gets `MQTTError.publishRefused` with the
/// reason, the client counts it in `messagesRefused`, and the log names its topic.
@Suite("A publish the broker refuses", .timeLimit(.minutes(1)))
struct RefusedPublishTests {
    /// Anonymous clients may use every topic but `closed/#`.
    static let acl = "topic readwrite #\ntopic deny closed/#\n"

    @Test func aRefusedPublishFailsIsCountedAndLoggedWithItsTopic() async throws {
        let acl = try AccessControlList(contents: Self.acl)
        try await withTestBroker(configure: { $0.accessControl = acl }) { broker in
            let capture = LogCapture()
            let client = try MQTTClient(
                configuration: MQTTConfiguration(host: "127.0.0.1", port: broker.port, clientID: "acl-test"),
                logger: capture.logger(label: "acl-test"))
            try await client.connect()
            #expect(client.protocolVersion == .v5)
            #expect(try await client.publish(to: "open/door", payload: "open", qos: .atLeastOnce) == .delivered)

            // Awaited, at QoS 1 (PUBACK 0x87) and QoS 2 (PUBREC 0x87).
            await #expect(throws: MQTTError.publishRefused(reason: .notAuthorized)) {
                try await client.publish(to: "closed/door", payload: "open", qos: .atLeastOnce)
            }
            await #expect(throws: MQTTError.publishRefused(reason: .notAuthorized)) {
                try await client.publish(to: "closed/window", payload: "open", qos: .exactlyOnce)
            }
            // Unattended: nobody awaits it, the log says it.
            try client.send(MQTTMessage(topic: "closed/gate", string: "open", qos: .atLeastOnce))
            let line = try await withTimeout(.seconds(10), "the refusal of closed/gate in the log") {
                try await capture.line(containing: "refused the message to closed/gate")
            }
            #expect(line.contains("not authorized (0x87)"), "\(line)")
            #expect(capture.lines.contains { $0.contains("closed/door") && $0.contains("not authorized (0x87)") }, "\(capture.lines)")

            #expect(try await client.publish(to: "open/window", payload: "open", qos: .exactlyOnce) == .delivered)
            let statistics = client.statistics
            #expect(statistics.messagesRefused == 3)
            #expect(statistics.messagesSent == 5)
            #expect(await broker.statistics().publishesDenied == 3)
            await client.disconnect()
        }
    }
}
