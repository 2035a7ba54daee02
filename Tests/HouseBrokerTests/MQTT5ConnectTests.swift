import HouseBroker
import HouseTesting
import Testing

/// MQTT 5 connections, sessions, wills and authentication, each against our broker and
/// mosquitto 2.0.11 (see `TestedBroker`).
// One test at a time: every case starts a broker (a mosquitto process for half of them), and
// dozens starting at once made other suites' connects time out in full runs.
@Suite("MQTT 5: CONNECT, sessions and wills", .serialized)
struct MQTT5ConnectTests {
    @Test("CONNACK says what the broker supports and its limits", arguments: TestedBroker.all)
    func connackAdvertises(broker: TestedBroker) async throws {
        try await withBroker(broker) { endpoint in
            let (client, connack) = try await MQTT5Client.connect(port: endpoint.port, clientID: "adv")
            let p = connack.properties
            #expect(!connack.sessionPresent)
            #expect(p.receiveMaximum == 20)
            #expect(p.topicAliasMaximum == 10)
            #expect(p.unknown.isEmpty)
            switch broker {
            case .house:
                // Every feature is said to be available even where absence would mean the same,
                // and the maximum packet size is the whole-packet form of the configured limit.
                #expect(p.retainAvailable == 1)
                #expect(p.wildcardAvailable == 1)
                #expect(p.subscriptionIDsAvailable == 1)
                #expect(p.sharedAvailable == 1)
                #expect(p.maximumPacketSize == UInt32(16 * 1024 * 1024 + 5))
                #expect(p.maximumQoS == nil)
            case .mosquitto:
                // mosquitto 2.0.11 leaves out what is available by default and has no limit set.
                #expect(p.retainAvailable == nil)
                #expect(p.maximumPacketSize == nil)
            }
            try await client.disconnect()
        }
    }

    @Test("MQTT 3.1.1 and MQTT 5 clients share the port and each other's messages", arguments: TestedBroker.all)
    func bothVersionsOnOnePort(broker: TestedBroker) async throws {
        try await withBroker(broker) { endpoint in
            let old = try await RawMQTTClient.connect(port: endpoint.port, clientID: "old")
            try await old.subscribe("mix/from5", qos: 1)
            let (new, _) = try await MQTT5Client.connect(port: endpoint.port, clientID: "new")
            try await new.subscribe("mix/#", options: 1)

            var props = Props5()
            props.userProperties = [.init("k", "v")]
            props.contentType = "text/plain"
            try await new.publish("mix/from5", "five", qos: 1, properties: props)
            let atOld = try await old.expectPublish()
            #expect(atOld.topic == "mix/from5" && atOld.payloadString == "five")
            try await old.send(RawMQTT.puback(atOld.packetID))
            let echo = try await new.receive()
            #expect(echo.properties.userProperties == [.init("k", "v")])

            try await old.publish("mix/from311", "three", qos: 1)
            let atNew = try await new.receive()
            #expect(atNew.topic == "mix/from311" && atNew.payloadString == "three")
            #expect(atNew.properties == Props5())
            try await old.expectNothingPending()
            try await new.expectNothingPending()
        }
    }

    @Test("an empty client identifier gets one assigned, told in CONNACK", arguments: TestedBroker.all)
    func assignedClientIdentifier(broker: TestedBroker) async throws {
        try await withBroker(broker) { endpoint in
            let (client, connack) = try await MQTT5Client.connect(port: endpoint.port, clientID: "")
            let assigned = try #require(connack.properties.assignedClientID)
            #expect(!assigned.isEmpty)
            if let house = endpoint.house { try await house.waitForClient(assigned) }
            try await client.disconnect()

            // With clean start 0 too (MQTT 5 allows it; there is no session to resume).
            let again = try await MQTT5Client.open(port: endpoint.port)
            try await again.send(RawMQTT5.connect(clientID: "", cleanStart: false))
            guard case .connack(let present, let code, let props) = try await again.next() else {
                Issue.record("no CONNACK")
                return
            }
            #expect(code == 0 && !present)
            #expect(props.assignedClientID?.isEmpty == false)
        }
    }

    @Test("a keepalive above the broker's maximum, or none, is replaced by Server Keep Alive", arguments: TestedBroker.all)
    func serverKeepAlive(broker: TestedBroker) async throws {
        var settings = BrokerSettings()
        settings.maximumKeepAlive = 30
        try await withBroker(broker, settings) { endpoint in
            let (long, longAck) = try await MQTT5Client.connect(port: endpoint.port, clientID: "long", keepAlive: 120)
            #expect(longAck.properties.serverKeepAlive == 30)
            let (short, shortAck) = try await MQTT5Client.connect(port: endpoint.port, clientID: "short", keepAlive: 10)
            #expect(shortAck.properties.serverKeepAlive == nil)
            let (none, noneAck) = try await MQTT5Client.connect(port: endpoint.port, clientID: "none", keepAlive: 0)
            #expect(noneAck.properties.serverKeepAlive == 30)
            if let house = endpoint.house {
                #expect(try await house.waitForClient("long").keepAlive == 30)
                #expect(try await house.waitForClient("short").keepAlive == 10)
            }
            // A 3.1.1 client keeps its keepalive: 3.1.1 cannot be told another.
            let old = try await RawMQTTClient.connect(port: endpoint.port, clientID: "old", keepAlive: 120)
            if let house = endpoint.house { #expect(try await house.waitForClient("old").keepAlive == 120) }
            try await old.expectNothingPending()
            for client in [long, short, none] { try await client.disconnect() }
        }
    }

    @Test("session expiry 0 ends the session with the connection; clean start 0 then finds none", arguments: TestedBroker.all)
    func sessionExpiryZero(broker: TestedBroker) async throws {
        try await withBroker(broker) { endpoint in
            var (client, _) = try await MQTT5Client.connect(port: endpoint.port, clientID: "brief")
            try await client.subscribe("brief/#", options: 1)
            try await client.disconnect()
            let connack: MQTT5Client.Connack5
            (client, connack) = try await MQTT5Client.connect(port: endpoint.port, clientID: "brief", cleanStart: false)
            #expect(!connack.sessionPresent)
            let (publisher, _) = try await MQTT5Client.connect(port: endpoint.port, clientID: "pub")
            #expect(try await publisher.publish("brief/x", "lost", qos: 1) == 0x10)
            try await client.expectNothingPending()
        }
    }

    @Test("a session with an expiry interval keeps subscriptions and queued messages; clean start discards it", arguments: TestedBroker.all)
    func sessionExpiryKeeps(broker: TestedBroker) async throws {
        try await withBroker(broker) { endpoint in
            var expiry = Props5()
            expiry.sessionExpiry = 60
            var (client, connack) = try await MQTT5Client.connect(port: endpoint.port, clientID: "keeper", properties: expiry)
            #expect(!connack.sessionPresent)
            try await client.subscribe("keep/#", options: 2)
            try await client.disconnect()
            if let house = endpoint.house {
                let info = try await house.waitUntil { $0.sessions["keeper"]?.isConnected == false }.sessions["keeper"]
                #expect(info?.sessionExpiryInterval == 60)
                #expect(info?.protocolVersion == .v5)
            }

            let (publisher, _) = try await MQTT5Client.connect(port: endpoint.port, clientID: "pub")
            #expect(try await publisher.publish("keep/a", "while away", qos: 2) == 0)
            (client, connack) = try await MQTT5Client.connect(port: endpoint.port, clientID: "keeper", cleanStart: false, properties: expiry)
            #expect(connack.sessionPresent)
            let queued = try await client.receive()
            #expect(queued.payloadString == "while away" && queued.qos == 2)
            try await client.disconnect()

            (client, connack) = try await MQTT5Client.connect(port: endpoint.port, clientID: "keeper", cleanStart: true, properties: expiry)
            #expect(!connack.sessionPresent)
            #expect(try await publisher.publish("keep/b", "nobody", qos: 1) == 0x10)
            try await client.expectNothingPending()
        }
    }

    @Test("DISCONNECT changes the session expiry interval, but not from 0 (protocol error 0x82)", arguments: TestedBroker.all)
    func disconnectChangesExpiry(broker: TestedBroker) async throws {
        try await withBroker(broker) { endpoint in
            var long = Props5()
            long.sessionExpiry = 60
            var zero = Props5()
            zero.sessionExpiry = 0
            var (client, _) = try await MQTT5Client.connect(port: endpoint.port, clientID: "changer", properties: long)
            try await client.subscribe("x", options: 1)
            try await client.disconnect(properties: zero)
            var connack: MQTT5Client.Connack5
            (client, connack) = try await MQTT5Client.connect(port: endpoint.port, clientID: "changer", cleanStart: false)
            #expect(!connack.sessionPresent, "the DISCONNECT's expiry of 0 ended the session")

            // This connection's CONNECT had none (0): raising it at DISCONNECT is a protocol error.
            var raise = Props5()
            raise.sessionExpiry = 30
            try await client.send(RawMQTT5.disconnect(properties: raise))
            let (code, _) = try await client.expectDisconnect()
            #expect(code == 0x82)
        }
    }

    @Test("a will waits its delay interval, with its properties; a session resumed in time cancels it", arguments: TestedBroker.all)
    func willDelay(broker: TestedBroker) async throws {
        try await withBroker(broker) { endpoint in
            let (watcher, _) = try await MQTT5Client.connect(port: endpoint.port, clientID: "watcher")
            try await watcher.subscribe("wills/#", options: 1)
            var session = Props5()
            session.sessionExpiry = 30
            func will(_ name: String, delay: UInt32) -> RawMQTT5.Will {
                var properties = Props5()
                properties.willDelay = delay
                properties.userProperties = [.init("who", name)]
                properties.contentType = "text/plain"
                properties.payloadFormat = 1
                properties.responseTopic = "answers/\(name)"
                properties.correlationData = [1, 2, 3]
                return RawMQTT5.Will(topic: "wills/\(name)", payload: Array("\(name) gone".utf8), qos: 1, properties: properties)
            }
            // 'back' returns before its will delay; 'gone' (same delay, killed after it) does not:
            // when gone's will arrives, back's would have too.
            // A delay of 2 s leaves a busy machine time to reconnect 'back' within it.
            let (back, _) = try await MQTT5Client.connect(port: endpoint.port, clientID: "back", properties: session, will: will("back", delay: 2))
            let (gone, _) = try await MQTT5Client.connect(port: endpoint.port, clientID: "gone", properties: session, will: will("gone", delay: 2))
            let clock = ContinuousClock()
            await back.kill()
            let start = clock.now
            await gone.kill()
            if let house = endpoint.house {
                try await house.waitUntil { $0.sessions["back"]?.hasPendingWill == true && $0.sessions["gone"]?.hasPendingWill == true }
            }
            let (returned, connack) = try await MQTT5Client.connect(port: endpoint.port, clientID: "back", cleanStart: false, properties: session)
            #expect(connack.sessionPresent)

            let message = try await watcher.receive(timeout: .seconds(10))
            let waited = clock.now - start
            #expect(message.topic == "wills/gone")
            #expect(message.payloadString == "gone gone")
            #expect(message.properties.userProperties == [.init("who", "gone")])
            #expect(message.properties.contentType == "text/plain")
            #expect(message.properties.payloadFormat == 1)
            #expect(message.properties.responseTopic == "answers/gone")
            #expect(message.properties.correlationData == [1, 2, 3])
            #expect(message.properties.willDelay == nil, "the will delay is not forwarded")
            switch broker {
            case .house:
                #expect(waited >= .milliseconds(1950))
            case .mosquitto:
                // mosquitto 2.0.11 checks will delays on a one-second tick: a delay of 2 s may
                // end after one.
                #expect(waited >= .milliseconds(950) && waited < .seconds(6))
            }
            try await watcher.expectNothingPending()
            try await returned.disconnect()
        }
    }

    @Test("a will delay longer than the session expiry: the will comes when the session ends", arguments: TestedBroker.all)
    func willAtSessionEnd(broker: TestedBroker) async throws {
        try await withBroker(broker) { endpoint in
            let (watcher, _) = try await MQTT5Client.connect(port: endpoint.port, clientID: "watcher")
            try await watcher.subscribe("wills/#")
            var session = Props5()
            session.sessionExpiry = 1
            var willProperties = Props5()
            willProperties.willDelay = 3600
            let (client, _) = try await MQTT5Client.connect(
                port: endpoint.port, clientID: "expiring", properties: session,
                will: RawMQTT5.Will(topic: "wills/expiring", payload: Array("bye".utf8), properties: willProperties))
            let clock = ContinuousClock()
            let start = clock.now
            await client.kill()
            let will = try await watcher.expectPublish(timeout: .seconds(10))
            #expect(will.topic == "wills/expiring")
            if broker == .house { #expect(clock.now - start >= .milliseconds(950)) }
            let (again, connack) = try await MQTT5Client.connect(port: endpoint.port, clientID: "expiring", cleanStart: false)
            #expect(!connack.sessionPresent, "the session expired")
            if let house = endpoint.house { #expect(await house.snapshot().statistics.messagesReceived == 1) }
            try await again.disconnect()
        }
    }

    @Test("DISCONNECT 0x04 publishes the will, 0x00 discards it", arguments: TestedBroker.all)
    func disconnectWithWill(broker: TestedBroker) async throws {
        try await withBroker(broker) { endpoint in
            let (watcher, _) = try await MQTT5Client.connect(port: endpoint.port, clientID: "watcher")
            try await watcher.subscribe("wills/#")
            let (polite, _) = try await MQTT5Client.connect(
                port: endpoint.port, clientID: "polite", will: RawMQTT5.Will(topic: "wills/polite", payload: Array("no".utf8)))
            try await polite.disconnect(code: 0)
            let (asking, _) = try await MQTT5Client.connect(
                port: endpoint.port, clientID: "asking", will: RawMQTT5.Will(topic: "wills/asking", payload: Array("yes".utf8)))
            try await asking.disconnect(code: 0x04)
            let will = try await watcher.expectPublish()
            #expect(will.topic == "wills/asking")
            try await watcher.expectNothingPending()
        }
    }

    @Test("a client taken over is told 0x8E (session taken over) and its will is published", arguments: TestedBroker.all)
    func takeover(broker: TestedBroker) async throws {
        try await withBroker(broker) { endpoint in
            let (watcher, _) = try await MQTT5Client.connect(port: endpoint.port, clientID: "watcher")
            try await watcher.subscribe("wills/#")
            let (old, _) = try await MQTT5Client.connect(
                port: endpoint.port, clientID: "twin", will: RawMQTT5.Will(topic: "wills/twin", payload: Array("old".utf8)))
            let (new, _) = try await MQTT5Client.connect(port: endpoint.port, clientID: "twin")
            switch broker {
            case .house:
                let (code, _) = try await old.expectDisconnect()
                #expect(code == 0x8E)
            case .mosquitto:
                // mosquitto 2.0.11 closes the old connection without a DISCONNECT.
                try await old.expectClosed()
            }
            #expect(try await watcher.expectPublish().payloadString == "old")
            try await new.expectNothingPending()
        }
    }

    @Test("enhanced authentication is refused: CONNACK 0x8C; AUTH without it is a protocol error", arguments: TestedBroker.all)
    func authentication(broker: TestedBroker) async throws {
        try await withBroker(broker) { endpoint in
            let client = try await MQTT5Client.open(port: endpoint.port)
            var props = Props5()
            props.authenticationMethod = "SCRAM-SHA-1"
            props.authenticationData = [1, 2]
            try await client.send(RawMQTT5.connect(clientID: "scram", properties: props))
            guard case .connack(_, let code, _) = try await client.next() else {
                Issue.record("no CONNACK")
                return
            }
            #expect(code == 0x8C)
            try await client.expectClosed()

            let (plain, _) = try await MQTT5Client.connect(port: endpoint.port, clientID: "plain")
            try await plain.send(RawMQTT.packet(0xF0, [0x18, 0]))  // AUTH, continue authentication
            switch broker {
            case .house:
                let (disconnect, _) = try await plain.expectDisconnect()
                #expect(disconnect == 0x82)
            case .mosquitto:
                // mosquitto 2.0.11 closes the connection without saying why.
                try await plain.expectClosed()
            }
        }
    }

    @Test("passwords and the ACL answer MQTT 5 clients with MQTT 5 codes (0x86, 0x87)", arguments: TestedBroker.all)
    func passwordsAndACL(broker: TestedBroker) async throws {
        var settings = BrokerSettings()
        settings.user = ("alice", "secret")
        settings.acl = "user alice\ntopic readwrite open/#\ntopic read ro/#\n"
        try await withBroker(broker, settings) { endpoint in
            // mosquitto 2.0.11 answers a wrong password or an unknown user with 0x87 (not
            // authorized) where MQTT 5 has 0x86 (bad user name or password).
            let bad: UInt8 = broker == .house ? 0x86 : 0x87
            for (user, password, expected) in [("alice", "wrong", bad), ("bob", "secret", bad), (nil, nil, 0x87)] as [(String?, String?, UInt8)] {
                let client = try await MQTT5Client.open(port: endpoint.port)
                try await client.send(RawMQTT5.connect(clientID: "c", username: user, password: password))
                guard case .connack(_, let code, _) = try await client.next() else {
                    Issue.record("no CONNACK")
                    continue
                }
                #expect(code == expected, "\(user ?? "anonymous")")
                try await client.expectClosed()
            }
            let (alice, _) = try await MQTT5Client.connect(port: endpoint.port, clientID: "alice", username: "alice", password: "secret")
            let granted = try await alice.subscribe([("open/#", 1), ("secret/#", 1), ("ro/#", 1)])
            // mosquitto 2.0.11 grants any subscription and checks the ACL on each delivery.
            #expect(granted == (broker == .house ? [1, 0x87, 1] : [1, 1, 1]))
            #expect(try await alice.publish("open/a", "ok", qos: 1) == 0)
            #expect(try await alice.receive().topic == "open/a")
            #expect(try await alice.publish("ro/a", "no", qos: 1) == 0x87)
            try await alice.expectNothingPending()
        }
    }
}
