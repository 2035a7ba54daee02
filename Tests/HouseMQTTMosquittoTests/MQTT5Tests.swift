import MQTTTopics
import Foundation
import HouseTesting
import Synchronization
import Testing
@testable import HouseMQTT

/// MQTT 5 against Debian's mosquitto 2.0.11: properties, subscription options, expiry, the will's
/// delay, reason codes, persistent sessions, and the fallback to 3.1.1.
@Suite("MQTT 5 against a real mosquitto", .enabled(if: MosquittoBroker.shouldRun, "mosquitto not installed (CI=true makes this a failure)"), .timeLimit(.minutes(2)))
struct MQTT5Tests {
    static let every = MQTTPublishProperties(
        messageExpiryInterval: 3600, responseTopic: "p5/reply/7", correlationData: [0, 1, 2, 0, 255],
        contentType: "application/json", payloadFormatIndicator: .utf8,
        userProperties: [MQTTUserProperty("b", "2"), MQTTUserProperty("a", "1"), MQTTUserProperty("b", "3"), MQTTUserProperty("pièce", "cuisine ✓")])

    /// Every property arrives as sent (user properties in order, a repeated name kept), the
    /// subscription's identifier with it; a 3.1.1 subscriber gets the message without them, and
    /// a 3.1.1 publisher's properties are left out without an error.
    @Test func everyPropertyArrivesIntactAndInOrder() async throws {
        try await withMosquitto { broker in
            try await MQTTClient.withConnection(configuration(broker, "sub")) { subscriber in
                #expect(subscriber.protocolVersion == .v5)
                let identified = try await subscriber.subscribe(to: "p5/+", options: MQTTSubscribeOptions(qos: .exactlyOnce, subscriptionIdentifier: 42))
                let plain = try await subscriber.subscribe(to: "p5/#", qos: .exactlyOnce)
                try await MQTTClient.withConnection(configuration(broker, "old", .v311)) { old in
                    let oldSubscription = try await old.subscribe(to: "p5/+")
                    try await MQTTClient.withConnection(configuration(broker, "pub")) { publisher in
                        #expect(try await publisher.publish(MQTTMessage(topic: "p5/x", string: "{\"on\":true}", qos: .atLeastOnce, properties: Self.every)) == .delivered)

                        let message = try await next(identified)
                        #expect(message.string == "{\"on\":true}")
                        let expiry = try #require(message.properties.messageExpiryInterval)
                        #expect((3598...3600).contains(expiry), "what is left of the expiry: \(expiry)")
                        var expected = Self.every
                        expected.messageExpiryInterval = expiry
                        expected.subscriptionIdentifiers = [42]
                        #expect(message.properties == expected)
                        #expect(message.properties.userProperties.map(\.description) == ["b=2", "a=1", "b=3", "pièce=cuisine ✓"])

                        // The overlapping subscription gets its own copy once, and the client's own
                        // identifier is not shown.
                        let copy = try await next(plain)
                        expected.subscriptionIdentifiers = []
                        #expect(copy.properties == expected)

                        let old = try await next(oldSubscription)
                        #expect(old.string == "{\"on\":true}")
                        #expect(old.properties.isEmpty)
                    }
                    try await old.publish(MQTTMessage(topic: "p5/y", string: "from 3.1.1", qos: .atLeastOnce, properties: Self.every))
                    let fromOld = try await next(identified)
                    #expect(fromOld.string == "from 3.1.1")
                    #expect(fromOld.properties == MQTTPublishProperties(subscriptionIdentifiers: [42]))
                    #expect(try await next(plain).string == "from 3.1.1")
                }
            }
        }
    }

    /// Retain as published: a live retained publish arrives with retain set; without it, cleared.
    @Test func retainAsPublishedShowsALiveRetainedPublish() async throws {
        try await withMosquitto { broker in
            try await MQTTClient.withConnection(configuration(broker, "sub")) { subscriber in
                let asPublished = try await subscriber.subscribe(to: "rap/+", options: MQTTSubscribeOptions(retainAsPublished: true))
                let cleared = try await subscriber.subscribe(to: "rap/#", options: MQTTSubscribeOptions())
                try await MQTTClient.withConnection(configuration(broker, "pub")) { publisher in
                    try await publisher.publish(to: "rap/state", payload: "ON", qos: .atLeastOnce, retain: true)
                    let kept = try await next(asPublished)
                    let live = try await next(cleared)
                    #expect(kept.string == "ON" && live.string == "ON")
                    #expect(kept.retain == true)
                    #expect(live.retain == false)
                }
            }
        }
    }

    /// No-local: a client's own publishes do not come back to that subscription.
    @Test func noLocalDropsOwnMessages() async throws {
        try await withMosquitto { broker in
            try await MQTTClient.withConnection(configuration(broker, "self")) { client in
                let others = try await client.subscribe(to: "nl/+", options: MQTTSubscribeOptions(noLocal: true))
                let everything = try await client.subscribe(to: "nl/#", options: MQTTSubscribeOptions())
                try await client.publish(to: "nl/own", payload: "own", qos: .atLeastOnce)
                try await MQTTClient.withConnection(configuration(broker, "peer")) { peer in
                    try await peer.publish(to: "nl/peer", payload: "peer", qos: .atLeastOnce)
                }
                #expect(try await next(everything).string == "own", "without no-local the own message comes")
                #expect(try await next(everything).string == "peer")
                #expect(try await next(others).string == "peer", "the own message was never delivered here")
            }
        }
    }

    /// Retain handling: `.never` gets no retained message at subscribe, `.sendIfNew` only for a
    /// new subscription, `.sendAlways` at every subscribe.
    @Test func retainHandlingDecidesWhetherRetainedMessagesCome() async throws {
        try await withMosquitto { broker in
            try await MQTTClient.withConnection(configuration(broker, "pub")) { publisher in
                try await publisher.publish(to: "rh/a", payload: "kept", qos: .atLeastOnce, retain: true)
            }
            try await MQTTClient.withConnection(configuration(broker, "sub")) { subscriber in
                let never = try await subscriber.subscribe(to: "rh/+", options: MQTTSubscribeOptions(retainHandling: .never))
                let always = try await subscriber.subscribe(to: "rh/#", options: MQTTSubscribeOptions(retainHandling: .sendAlways))
                let new = try await subscriber.subscribe(to: "rh/a", options: MQTTSubscribeOptions(retainHandling: .sendIfNew))
                // At once: the retained message of the first SUBSCRIBE of rh/a may still be on its
                // way, and it is not for the second subscription (its identifier is the first's).
                let again = try await subscriber.subscribe(to: "rh/a", options: MQTTSubscribeOptions(retainHandling: .sendIfNew))
                #expect(try await next(new).string == "kept", "a new subscription gets the retained message")
                try await subscriber.publish(to: "rh/fence", payload: "fence", qos: .atLeastOnce)

                let first = try await next(always)
                #expect(first.string == "kept" && first.retain)
                #expect(try await next(always).string == "fence")
                #expect(try await collect(never, until: "fence") == [], "retain handling 2: no retained message")
                // The second SUBSCRIBE of rh/a found the subscription: no retained message again,
                // for either subscription of that filter.
                try await subscriber.publish(to: "rh/a", payload: "live", qos: .atLeastOnce)
                #expect(try await next(again).string == "live")
                #expect(try await next(new).string == "live")
            }
        }
    }

    /// A retained message with a message expiry of 1 s is gone once it lapsed, while one without
    /// expiry stays (mosquitto checks in whole seconds: polled, bounded).
    @Test func aRetainedMessageExpires() async throws {
        try await withMosquitto { broker in
            try await MQTTClient.withConnection(configuration(broker, "sub")) { subscriber in
                let live = try await subscriber.subscribe(to: "exp/brief")
                try await MQTTClient.withConnection(configuration(broker, "pub")) { publisher in
                    try await publisher.publish(to: "exp/kept", payload: "kept", qos: .atLeastOnce, retain: true)
                    try await publisher.publish(MQTTMessage(topic: "exp/brief", string: "brief", qos: .atLeastOnce, retain: true,
                                                            properties: MQTTPublishProperties(messageExpiryInterval: 1)))
                }
                let sent = try await next(live)
                #expect(sent.string == "brief" && sent.properties.messageExpiryInterval.map { $0 <= 1 } == true)

                /// The retained messages a fresh subscription to exp/+ gets (up to a fence).
                func retained() async throws -> [String] {
                    let subscription = try await subscriber.subscribe(to: "exp/+")
                    defer { Task { try? await subscriber.unsubscribe(subscription) } }
                    try await subscriber.publish(to: "exp/fence", payload: "fence", qos: .atLeastOnce)
                    return try await collect(subscription, until: "fence")
                }
                let deadline = ContinuousClock.now.advanced(by: .seconds(10))
                var seen = try await retained()
                while seen.contains("brief") && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(250))
                    seen = try await retained()
                }
                #expect(seen == ["kept"], "the expired message is gone within 10 s, the other stays")
            }
        }
    }

    /// A will with a delay: published that long after the client vanished (not at once), with
    /// its properties. The session must outlive the delay: a persistent session never expires.
    @Test func aWillWithADelayComesLateWithItsProperties() async throws {
        try await withMosquitto { broker in
            try await MQTTClient.withConnection(configuration(broker, "watcher")) { watcher in
                let wills = try await watcher.subscribe(to: "will/#")
                var dying = configuration(broker, "dying")
                dying.cleanSession = false
                dying.lastWill = MQTTMessage(topic: "will/dying", string: "offline", qos: .atLeastOnce,
                                             properties: MQTTPublishProperties(contentType: "text/plain", userProperties: [MQTTUserProperty("why", "gone")]))
                dying.lastWillDelayInterval = 2
                dying.reconnect = MQTTReconnectPolicy(initialDelay: .seconds(100), maximumDelay: .seconds(100), jitter: 0)
                let client = try MQTTClient(configuration: dying)
                try await client.connect()
                client.abortConnectionForTesting()
                let vanished = ContinuousClock.now
                let will = try await next(wills, "the will")
                let after = vanished.duration(to: .now)
                await client.disconnect()
                #expect(will.string == "offline")
                #expect(after >= .seconds(1), "a will without a delay comes at once; this one came after \(after)")
                #expect(will.properties.contentType == "text/plain")
                #expect(will.properties.userProperties == [MQTTUserProperty("why", "gone")])
            }
        }
    }

    /// A SUBACK failure is a rejected subscription with the broker's reason: "not authorized" on
    /// MQTT 5, 0x80 on 3.1.1 (mosquitto's dynamic security plugin refuses the filter).
    @Test(arguments: MQTTProtocolVersion.allCases)
    func aRefusedSubscriptionSaysWhy(version: MQTTProtocolVersion) async throws {
        try await withDynamicSecurityMosquitto { broker in
            try await MQTTClient.withConnection(configuration(broker, "acl", version)) { client in
                let open = try await client.subscribe(to: "open/#")
                #expect(open.grantedQoS == .atLeastOnce)
                do {
                    _ = try await client.subscribe(to: "closed/#")
                    Issue.record("the subscription to closed/# was granted")
                } catch let error as MQTTError {
                    let reason: MQTTReasonCode = version == .v5 ? .notAuthorized : .unspecifiedError
                    #expect(error == .subscriptionRejected(filter: "closed/#", reason: reason))
                    #expect(error.reasonCode == reason)
                    #expect("\(error)".contains(version == .v5 ? "not authorized (0x87)" : "unspecified error (0x80)"), "\(error)")
                }
                #expect(client.activeSubscriptionCount == 1)
            }
        }
    }

    /// The broker's answer to a QoS 1 publish reaches `send(_:acknowledged:)`: on MQTT 5 "no
    /// matching subscribers" while nobody subscribes and success once somebody does (the events
    /// topic is held back on that), and a publish the ACL refuses is an error with the reason, not
    /// a delivery. MQTT 3.1.1 has no reason codes: success, whatever became of the message.
    @Test(arguments: MQTTProtocolVersion.allCases)
    func thePubackSaysWhetherAnybodySubscribesAndARefusalIsAnError(version: MQTTProtocolVersion) async throws {
        try await withDynamicSecurityMosquitto { broker in
            try await MQTTClient.withConnection(configuration(broker, "acks", version)) { client in
                let (answers, answered) = AsyncStream<MQTTReasonCode>.makeStream()
                func answer(_ topic: String) async throws -> MQTTReasonCode? {
                    try client.send(MQTTMessage(topic: topic, string: "x", qos: .atLeastOnce)) { answered.yield($0) }
                    return try await withTimeout(.seconds(10), "the PUBACK of \(topic)") {
                        for await reason in answers { return reason }
                        return nil
                    }
                }
                #expect(try await answer("open/nobody") == (version == .v5 ? .noMatchingSubscribers : .success))
                let subscription = try await client.subscribe(to: "open/somebody")
                #expect(try await answer("open/somebody") == .success)
                _ = try await next(subscription)
                do {
                    let delivery = try await client.publish(to: "closed/door", payload: "open", qos: .atLeastOnce)
                    #expect(version == .v311 && delivery == .delivered, "a refused publish on MQTT 5 is no delivery")
                } catch let error as MQTTError {
                    #expect(version == .v5 && error == .publishRefused(reason: .notAuthorized), "\(error)")
                    #expect(error.reasonCode == .notAuthorized)
                    #expect("\(error)".contains("not authorized (0x87)"), "\(error)")
                }
            }
        }
    }

    /// mosquitto's `acl_file` refuses a publish with PUBACK (QoS 1) or PUBREC (QoS 2) "not
    /// authorized": the publish throws, the client counts it and logs its topic.
    @Test func aPublishTheACLFileRefusesIsNoDelivery() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let acl = directory.appendingPathComponent("acl")
        try "topic readwrite open/#\n".write(to: acl, atomically: true, encoding: .utf8)
        try await withMosquitto(configLines: ["acl_file \(acl.path)"]) { broker in
            let capture = LogCapture()
            let client = try MQTTClient(configuration: configuration(broker, "acl"), logger: capture.logger(label: "acl"))
            try await client.connect()
            #expect(try await client.publish(to: "open/door", payload: "open", qos: .atLeastOnce) == .delivered)
            for qos in [MQTTQoS.atLeastOnce, .exactlyOnce] {
                await #expect(throws: MQTTError.publishRefused(reason: .notAuthorized)) {
                    try await client.publish(to: "closed/door", payload: "open", qos: qos)
                }
            }
            #expect(client.statistics.messagesRefused == 2)
            #expect(capture.lines.contains { $0.contains("refused the message to closed/door: not authorized (0x87)") }, "\(capture.lines)")
            await client.disconnect()
        }
    }

    /// MQTT 5 keeps a session only with a session expiry interval: with clean session off, a
    /// QoS 1 message sent while the client was away waits for it (the CONNECT properties arrive).
    @Test func aPersistentSessionKeepsMessagesWhileAway() async throws {
        try await withMosquitto { broker in
            var persistent = configuration(broker, "persistent")
            persistent.cleanSession = false
            try await MQTTClient.withConnection(persistent) { client in
                // Kept to the end: a subscription dropped unsubscribes.
                let kept = try await client.subscribe(to: "ps/t")
                await client.disconnect()
                withExtendedLifetime(kept) {}
            }
            try await MQTTClient.withConnection(configuration(broker, "pub")) { publisher in
                try await publisher.publish(to: "ps/t", payload: "while away", qos: .atLeastOnce)
            }
            let client = try MQTTClient(configuration: persistent)
            let subscription = try await client.subscribe(to: "ps/t")
            let sessionPresent = try await client.connect()
            #expect(sessionPresent, "the broker kept the session")
            #expect(try await next(subscription).string == "while away")
            await client.disconnect()
        }
    }

    /// The broker's DISCONNECT reason reaches the connection state (mosquitto's dynamic security
    /// plugin disconnects the anonymous clients for "administrative action" when told to).
    @Test func aBrokerDisconnectSaysWhy() async throws {
        try await withDynamicSecurityMosquitto { broker in
            try await MQTTClient.withConnection(configuration(broker, "kicked")) { client in
                let states = client.connectionStates()
                try await MQTTClient.withConnection(configuration(broker, "admin", .v311)) { admin in
                    // QoS 0: the admin is disconnected too, and must not send the command again.
                    try admin.send(MQTTMessage(topic: "$CONTROL/dynamic-security/v1",
                                               string: #"{"commands":[{"command":"setAnonymousGroup","groupname":"anonymous"}]}"#))
                }
                let error = try await withTimeout(.seconds(30), "the broker's DISCONNECT") {
                    for await state in states {
                        if case .disconnected(let error?) = state { return error }
                    }
                    throw TimeoutError(what: "the state stream ended", after: .zero)
                }
                #expect(error == .disconnectedByBroker(endpoint: "127.0.0.1:\(broker.port)", reason: .administrativeAction))
                #expect("\(error)" == "MQTT broker 127.0.0.1:\(broker.port) closed the connection: administrative action (0x98)")
                try await waitFor(client, "reconnected") { $0.isConnected }
            }
        }
    }

    /// The in-flight window is at most the broker's receive maximum on MQTT 5 (mosquitto's
    /// `max_inflight_messages`): libmosquitto would park the rest.
    @Test func theWindowFollowsTheBrokersReceiveMaximum() async throws {
        try await withMosquitto(configLines: ["max_inflight_messages 7"]) { broker in
            try await MQTTClient.withConnection(configuration(broker, "v5")) { client in
                #expect(client.state.withLock { $0.inFlightLimit } == 7)
                let subscription = try await client.subscribe(to: "win/t")
                for n in 1...40 { try client.send(MQTTMessage(topic: "win/t", string: "\(n)", qos: .atLeastOnce)) }
                try client.send(MQTTMessage(topic: "win/t", string: "end", qos: .atLeastOnce))
                #expect(try await collect(subscription, until: "end") == (1...40).map(String.init))
            }
            try await MQTTClient.withConnection(configuration(broker, "v311", .v311)) { client in
                #expect(client.state.withLock { $0.inFlightLimit } == 100)
            }
        }
    }

    /// A message queued while offline leaves with what is left of its expiry, or not at all.
    @Test func queuedMessagesLeaveWithWhatIsLeftOfTheirExpiry() async throws {
        try await withMosquitto { broker in
            try await MQTTClient.withConnection(configuration(broker, "sub")) { subscriber in
                let subscription = try await subscriber.subscribe(to: "q/+")
                let clock = ManualClock(start: Date(timeIntervalSince1970: 0))
                let client = try MQTTClient(configuration: configuration(broker, "queued"), clock: clock)
                #expect(try await client.publish(MQTTMessage(topic: "q/a", string: "a", qos: .atLeastOnce, properties: MQTTPublishProperties(messageExpiryInterval: 10))) == .queued)
                #expect(try await client.publish(MQTTMessage(topic: "q/b", string: "b", qos: .atLeastOnce, properties: MQTTPublishProperties(messageExpiryInterval: 3))) == .queued)
                #expect(try await client.publish(to: "q/c", payload: "c", qos: .atLeastOnce) == .queued)
                clock.advance(by: .milliseconds(4500))
                try await client.connect()
                let a = try await next(subscription)
                #expect(a.string == "a")
                let left = try #require(a.properties.messageExpiryInterval)
                #expect((5...6).contains(left), "10 s less 4.5 s queued, rounded up (less what the broker kept it): \(left)")
                let c = try await next(subscription)
                #expect(c.string == "c" && c.properties.messageExpiryInterval == nil)
                #expect(client.statistics.messagesExpired == 1, "b expired in the queue")
                await client.disconnect()
            }
        }
    }

    /// A broker that speaks 3.1.1 only refuses the MQTT 5 CONNECT with CONNACK 1: the client
    /// connects again at once with 3.1.1, says so once, works (properties left out), and keeps
    /// 3.1.1 for its reconnects.
    @Test func fallsBackToThreeOneOneWithABrokerThatRefusesMQTT5() async throws {
        try await withMosquitto { broker in
            let proxy = try MQTT311OnlyProxy(upstreamPort: broker.port)
            defer { proxy.stop() }
            let capture = LogCapture()
            let client = try MQTTClient(configuration: configuration(port: proxy.port, "old-broker"), logger: capture.logger())
            // Connected by the first connect() itself (it throws when its attempt fails): the 3.1.1
            // CONNECT followed the refusal on the spot, not through the reconnect loop's backoff.
            try await client.connect()
            #expect(client.protocolVersion == .v311)
            #expect(proxy.counts == (refused: 1, passed: 1))
            let warnings = capture.lines.filter { $0.hasPrefix("warning") }
            #expect(warnings.count == 1)
            #expect(warnings.first?.contains("does not speak MQTT 5") == true, "\(warnings)")

            let subscription = try await client.subscribe(to: "fb/+", options: MQTTSubscribeOptions(noLocal: true, subscriptionIdentifier: 5))
            #expect(subscription.grantedQoS == .atLeastOnce)
            try await MQTTClient.withConnection(configuration(broker, "peer")) { peer in
                try await peer.publish(MQTTMessage(topic: "fb/x", string: "hello", qos: .atLeastOnce, properties: Self.every))
            }
            let message = try await next(subscription)
            #expect(message.string == "hello")
            #expect(message.properties.isEmpty, "3.1.1 carries no properties")
            #expect(try await client.publish(MQTTMessage(topic: "fb/own", string: "own", qos: .atLeastOnce, properties: Self.every)) == .delivered)
            #expect(try await next(subscription).string == "own", "no-local is not sent on 3.1.1")

            client.abortConnectionForTesting()
            try await waitUntil(client, "reconnected through the proxy") { proxy.counts.passed == 2 && client.connectionState.isConnected }
            #expect(proxy.counts.refused == 1, "the fallback is remembered: no second MQTT 5 CONNECT")
            #expect(client.protocolVersion == .v311)
            await client.disconnect()
        }
    }
}
