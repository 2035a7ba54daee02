import MQTTTopics
import Foundation
import HouseBroker
import HouseTesting
import Testing

/// MQTT 5 in our broker only: what the inspection API shows, the broker's own limits holding for
/// MQTT 5 state, TLS, and how it ends MQTT 5 connections.
// One test at a time: every case starts a broker (a mosquitto process for half of them), and
// dozens starting at once made other suites' connects time out in full runs.
@Suite("MQTT 5 in HouseBroker: inspection, bounds, TLS", .serialized)
struct MQTT5HouseBrokerTests {
    @Test("the inspection API shows an MQTT 5 session: version, expiry, options, a waiting will, properties")
    func inspection() async throws {
        try await withTestBroker { broker in
            var session = Props5()
            session.sessionExpiry = 120
            var willProperties = Props5()
            willProperties.willDelay = 600
            let (client, _) = try await MQTT5Client.connect(
                port: broker.port, clientID: "seen", keepAlive: 45, properties: session,
                will: .init(topic: "wills/seen", payload: Array("bye".utf8), properties: willProperties))
            var id = Props5()
            id.subscriptionIdentifiers = [12]
            try await client.subscribe("seen/#", options: RawMQTT5.options(qos: 2, noLocal: true, retainAsPublished: true, retainHandling: 2),
                                       properties: id)
            var props = Props5()
            props.userProperties = [.init("a", "b")]
            props.messageExpiry = 100
            try await client.publish("kept", "value", qos: 1, retain: true, properties: props)

            let info = try await broker.waitForClient("seen")
            #expect(info.protocolVersion == .v5)
            #expect(info.sessionExpiryInterval == 120)
            #expect(!info.cleanSession)
            #expect(info.keepAlive == 45)
            #expect(info.subscriptions == ["seen/#": .exactlyOnce])
            #expect(info.subscriptionOptions["seen/#"] == HouseBroker.Subscription(
                qos: .exactlyOnce, noLocal: true, retainAsPublished: true, retainHandling: .never, identifier: 12))
            let retained = try #require(await broker.retainedMessages()["kept"])
            #expect(retained.properties?.userProperties == [MQTTUserProperty("a", "b")])
            #expect(retained.properties?.messageExpiryInterval == 100)

            await client.kill()
            let away = try await broker.waitUntil { $0.sessions["seen"]?.hasPendingWill == true }
            #expect(away.sessions["seen"]?.isConnected == false)
            let (back, connack) = try await MQTT5Client.connect(port: broker.port, clientID: "seen", cleanStart: false, properties: session)
            #expect(connack.sessionPresent)
            #expect(try await broker.waitForClient("seen").hasPendingWill == false)
            try await back.disconnect()
        }
    }

    @Test("MQTT 5 state stays within the broker's bounds: properties count as queued and retained bytes, waiting wills as held bytes")
    func bounds() async throws {
        try await withTestBroker(configure: {
            $0.maximumQueuedBytes = 10_000
            $0.maximumRetainedBytes = 10_000
            $0.maximumTotalQueuedBytes = 20_000
        }) { broker in
            var session = Props5()
            session.sessionExpiry = 600
            let (slow, _) = try await MQTT5Client.connect(port: broker.port, clientID: "slow", properties: session)
            try await slow.subscribe("big/#", options: 1)
            try await slow.disconnect()
            let (publisher, _) = try await MQTT5Client.connect(port: broker.port, clientID: "pub")
            // Small payloads, large user properties: the properties are what fills the queue.
            var heavy = Props5()
            heavy.userProperties = [.init("padding", String(repeating: "p", count: 3000))]
            for index in 1...5 {
                try await publisher.publish("big/\(index)", "x", qos: 1, packetID: UInt16(index), properties: heavy)
            }
            let snapshot = try await broker.waitUntil { $0.statistics.messagesDropped > 0 }
            #expect(snapshot.sessions["slow"]?.queuedCount == 3)
            #expect(snapshot.statistics.heldBytes <= 10_000)

            #expect(try await publisher.publish("retain/a", "x", qos: 1, retain: true, packetID: 6, properties: heavy) == 0x10)
            #expect(try await publisher.publish("retain/b", "x", qos: 1, retain: true, packetID: 7, properties: heavy) == 0x10)
            #expect(try await publisher.publish("retain/c", "x", qos: 1, retain: true, packetID: 8, properties: heavy) == 0x10)
            #expect(try await publisher.publish("retain/d", "x", qos: 1, retain: true, packetID: 9, properties: heavy) == 0x10)
            let retained = await broker.snapshot()
            #expect(retained.retained.count == 3)
            #expect(retained.statistics.retainedRefused == 1)
            #expect(retained.statistics.retainedBytes <= 10_000)

            // Wills waiting for their delay are held bytes too; past the total one is published at once.
            let (watcher, _) = try await MQTT5Client.connect(port: broker.port, clientID: "watcher")
            try await watcher.subscribe("wills/#")
            var delayed = Props5()
            delayed.willDelay = 600
            let before = await broker.statistics().heldBytes
            let (first, _) = try await MQTT5Client.connect(
                port: broker.port, clientID: "w1", properties: session,
                will: .init(topic: "wills/w1", payload: Array(repeating: 1, count: 8000), properties: delayed))
            await first.kill()
            let waiting = try await broker.waitUntil { $0.sessions["w1"]?.hasPendingWill == true }
            #expect(waiting.statistics.heldBytes == before + "wills/w1".utf8.count + 8000)
            let (second, _) = try await MQTT5Client.connect(
                port: broker.port, clientID: "w2", properties: session,
                will: .init(topic: "wills/w2", payload: Array(repeating: 2, count: 8000), properties: delayed))
            await second.kill()
            #expect(try await watcher.expectPublish().topic == "wills/w2")
            let after = await broker.snapshot()
            #expect(after.sessions["w1"]?.hasPendingWill == true)
            #expect(after.sessions["w2"]?.hasPendingWill == false)
        }
    }

    @Test("a topic alias is not kept for a topic longer than the broker routes")
    func aliasBound() async throws {
        try await withTestBroker(configure: { $0.maximumTopicLength = 20 }) { broker in
            let (client, _) = try await MQTT5Client.connect(port: broker.port, clientID: "long")
            var alias = Props5()
            alias.topicAlias = 1
            #expect(try await client.publish(String(repeating: "t", count: 30), "x", qos: 1, properties: alias) == 0x90)
            try await client.send(RawMQTT5.publish(topic: "", payload: [1], qos: 1, packetID: 2, properties: alias))
            #expect(try await client.expectDisconnect().code == 0x82)
        }
    }

    @Test("the broker ends MQTT 5 connections saying why: keepalive timeout 0x8D, shutting down 0x8B")
    func brokerEnds() async throws {
        try await withTestBroker { broker in
            let (silent, _) = try await MQTT5Client.connect(port: broker.port, clientID: "silent", keepAlive: 1)
            #expect(try await silent.expectDisconnect(timeout: .seconds(5)).code == 0x8D)
            let (client, _) = try await MQTT5Client.connect(port: broker.port, clientID: "stays")
            let old = try await RawMQTTClient.connect(port: broker.port, clientID: "old")
            await broker.shutdown()
            #expect(try await client.expectDisconnect().code == 0x8B)
            try await old.expectClosed()
        }
    }

    @Test("an MQTT 5 client over TLS (mosquitto_pub/sub -V mqttv5 with the CA)", .enabled(if: MosquittoProcess.shouldRun))
    func tls() async throws {
        try MosquittoProcess.requireTools()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("housectl-tls5-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificates = try await MosquittoBroker.makeTestCertificates(in: directory)
        var configuration = HouseBroker.Configuration(host: "127.0.0.1", port: 0)
        configuration.tls = .init(certificateFile: certificates.serverCertificate.path, keyFile: certificates.serverKey.path)
        let broker = try await HouseBroker.start(configuration)
        do {
            let sub = try MosquittoProcess.subscribe(port: broker.port, clientID: "tls5", [
                "-V", "mqttv5", "--cafile", certificates.caFile.path, "-t", "secure/#", "-q", "1", "-C", "1", "-W", "15",
                "-F", "%t %p %P"])
            try await broker.waitForSubscription(clientID: "tls5", filter: "secure/#")
            #expect(try await broker.waitForClient("tls5").protocolVersion == .v5)
            try await MosquittoProcess.publish(port: broker.port, [
                "-V", "mqttv5", "--cafile", certificates.caFile.path, "-t", "secure/a", "-m", "over TLS", "-q", "1",
                "-D", "publish", "user-property", "via", "tls"])
            #expect(try await sub.waitForExit() == 0)
            #expect(sub.output == "secure/a over TLS via:tls\n")
        } catch {
            await broker.shutdown()
            throw error
        }
        await broker.shutdown()
    }
}
