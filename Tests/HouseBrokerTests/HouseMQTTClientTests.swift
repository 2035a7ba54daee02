import MQTTTopics
import Foundation
import HouseBroker
import HouseMQTT
import HouseTesting
import Testing

/// HouseBroker driven by our own libmosquitto client (the same client the controller uses).
@Suite("HouseBroker with the HouseMQTT client", .timeLimit(.minutes(1)))
struct HouseMQTTClientTests {
    func configuration(_ broker: HouseBroker, _ name: String, cleanSession: Bool = true,
                       will: MQTTMessage? = nil) -> MQTTConfiguration {
        MQTTConfiguration(host: "127.0.0.1", port: broker.port, clientID: name, cleanSession: cleanSession,
                          lastWill: will,
                          reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(200)))
    }

    @Test(arguments: MQTTQoS.allCases)
    func roundTripAtEachQoS(qos: MQTTQoS) async throws {
        try await withTestBroker { broker in
            try await MQTTClient.withConnection(configuration(broker, "sub-\(qos.rawValue)")) { sub in
                let subscription = try await sub.subscribe(to: "rt/+", qos: .exactlyOnce)
                #expect(subscription.grantedQoS == .exactlyOnce)
                try await MQTTClient.withConnection(configuration(broker, "pub-\(qos.rawValue)")) { pub in
                    #expect(try await pub.publish(to: "rt/x", payload: [0, 255, 7], qos: qos) == .delivered)
                    let m = try await subscription.next("the message at \(qos)")
                    #expect(m.payload == [0, 255, 7])
                    // Delivered at the lower of the publish and subscription QoS.
                    #expect(m.qos == qos)
                    #expect(!m.retain)
                }
            }
        }
    }

    /// The client asks for MQTT 5 (its default). A broker that speaks only 3.1.1 refuses it with
    /// CONNACK 1 and the client connects again at once with 3.1.1, saying so once in its log;
    /// once HouseBroker speaks MQTT 5 the first CONNECT is taken. Either way it works.
    @Test func anMQTT5ClientConnectsWhateverTheBrokerSpeaks() async throws {
        try await withTestBroker { broker in
            let capture = LogCapture()
            try await MQTTClient.withConnection(configuration(broker, "v5-sub"), logger: capture.logger()) { sub in
                let version = try #require(sub.protocolVersion)
                let refused = await broker.statistics().connectionsRefused
                let warnings = capture.lines.filter { $0.hasPrefix("warning") }
                switch version {
                case .v311:
                    #expect(refused == 1)
                    #expect(warnings.count == 1 && warnings[0].contains("does not speak MQTT 5"), "\(warnings)")
                case .v5:
                    #expect(refused == 0)
                    #expect(warnings.isEmpty, "\(warnings)")
                }
                let subscription = try await sub.subscribe(to: "v5/+", qos: .atLeastOnce)
                try await MQTTClient.withConnection(configuration(broker, "v5-pub")) { pub in
                    let properties = MQTTPublishProperties(contentType: "text/plain", userProperties: [MQTTUserProperty("k", "v")])
                    try await pub.publish(to: "v5/x", payload: "hello", qos: .atLeastOnce, properties: properties)
                    let message = try await subscription.next("the message")
                    #expect(message.string == "hello")
                    if version == .v311 { #expect(message.properties.isEmpty) }
                }
            }
        }
    }

    /// Not waiting for the PUBACK: `.sent` at once, and every message still arrives, in order,
    /// with the acknowledgements consumed quietly (the client's pending map empties).
    @Test func publishingWithoutWaitingStillDeliversEveryMessage() async throws {
        try await withTestBroker { broker in
            try await MQTTClient.withConnection(configuration(broker, "sub-nowait")) { sub in
                let subscription = try await sub.subscribe(to: "nowait/+", qos: .atLeastOnce)
                try await MQTTClient.withConnection(configuration(broker, "pub-nowait")) { pub in
                    for n in 0..<50 {
                        let delivery = try pub.send(MQTTMessage(topic: "nowait/x", string: "\(n)", qos: .atLeastOnce))
                        #expect(delivery == .sent)
                    }
                    for n in 0..<50 {
                        let message = try await subscription.next("message \(n)")
                        #expect(message.string == "\(n)")
                    }
                    // A waiting publish after them is acknowledged as before.
                    let last = try await pub.publish(to: "nowait/y", payload: "last", qos: .atLeastOnce)
                    #expect(last == .delivered)
                }
            }
        }
    }

    @Test func retainedMessagesAreSetReplacedAndCleared() async throws {
        try await withTestBroker { broker in
            try await MQTTClient.withConnection(configuration(broker, "pub")) { pub in
                try await pub.publish(to: "house/hall/light/state", payload: "ON", qos: .atLeastOnce, retain: true)
                try await pub.publish(to: "house/hall/light/state", payload: "OFF", qos: .atLeastOnce, retain: true)
                try await MQTTClient.withConnection(configuration(broker, "late")) { late in
                    let m = try await late.subscribe(to: "house/#").next("the retained state")
                    #expect(m.string == "OFF")
                    #expect(m.retain)
                }
                try await pub.publish(to: "house/hall/light/state", payload: "", qos: .atLeastOnce, retain: true)
                #expect(await broker.retainedMessages()["house/hall/light/state"] == nil)
            }
        }
    }

    @Test func theWillIsPublishedWhenAClientIsDropped() async throws {
        try await withTestBroker { broker in
            let will = MQTTMessage(topic: "wills/dying", string: "offline", qos: .atLeastOnce, retain: true)
            let dying = try MQTTClient(configuration: configuration(broker, "dying", will: will))
            try await dying.connect()
            _ = try await broker.waitForClient("dying")
            #expect(await broker.retainedMessages()["wills/dying"] == nil)
            // Cut the connection at the broker: the client did not say DISCONNECT.
            await broker.dropAllConnections()
            _ = try await broker.waitUntil(timeout: .seconds(10), "the will") { $0.retained["wills/dying"] != nil }
            await dying.disconnect()
        }
    }

    @Test func aPersistentSessionKeepsQoS1MessagesWhileTheClientIsAway() async throws {
        try await withTestBroker { broker in
            let first = try MQTTClient(configuration: configuration(broker, "keeper", cleanSession: false))
            try await first.connect()
            // Keep the subscription alive: dropping it would unsubscribe.
            let kept = try await first.subscribe(to: "queue/#", qos: .atLeastOnce)
            await first.disconnect()
            withExtendedLifetime(kept) {}
            try await broker.waitForDisconnect("keeper")
            #expect(await broker.snapshot().sessions["keeper"]?.subscriptions["queue/#"] == .atLeastOnce)
            try await MQTTClient.withConnection(configuration(broker, "sender")) { sender in
                for i in 0..<5 { try await sender.publish(to: "queue/\(i)", payload: "m\(i)", qos: .atLeastOnce) }
            }
            let queued = try await broker.waitUntil(timeout: .seconds(10), "5 messages queued for keeper") {
                ($0.sessions["keeper"]?.queuedCount ?? 0) + ($0.sessions["keeper"]?.inflightCount ?? 0) == 5
            }
            #expect(queued.sessions["keeper"]?.isConnected == false)
            let second = try MQTTClient(configuration: configuration(broker, "keeper", cleanSession: false))
            // Subscribe again (the client re-sends it anyway) and read the queued messages in order.
            let subscription = try await second.subscribe(to: "queue/#", qos: .atLeastOnce)
            try await second.connect()
            var got: [String] = []
            for _ in 0..<5 { got.append(try await subscription.next("queued message").string ?? "") }
            #expect(got == ["m0", "m1", "m2", "m3", "m4"])
            await second.disconnect()
        }
    }
}
