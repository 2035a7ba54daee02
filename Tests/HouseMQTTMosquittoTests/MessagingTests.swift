import Foundation
import Synchronization
import HouseTesting
import Testing
@testable import HouseMQTT

@Suite("MQTT client against a real mosquitto", .enabled(if: MosquittoBroker.shouldRun, "mosquitto not installed (CI=true makes this a failure)"), .timeLimit(.minutes(2)))
struct MessagingTests {
    @Test(arguments: MQTTQoS.allCases, MQTTProtocolVersion.allCases)
    func roundTrip(qos: MQTTQoS, version: MQTTProtocolVersion) async throws {
        try await withMosquitto { broker in
            try await MQTTClient.withConnection(configuration(broker, "sub", version)) { subscriber in
                #expect(subscriber.protocolVersion == version)
                let subscription = try await subscriber.subscribe(to: "rt/\(qos.rawValue)", qos: .exactlyOnce)
                #expect(subscription.grantedQoS == .exactlyOnce)
                try await MQTTClient.withConnection(configuration(broker, "pub", version)) { publisher in
                    let payload: [UInt8] = [0, 1, 2, 255] + Array("qos \(qos.rawValue)".utf8)
                    #expect(try await publisher.publish(to: "rt/\(qos.rawValue)", payload: payload, qos: qos) == .delivered)
                    let message = try await next(subscription)
                    #expect(message.topic == "rt/\(qos.rawValue)")
                    #expect(message.payload == payload)
                    #expect(message.qos == qos)
                    #expect(message.retain == false)
                    #expect(publisher.statistics.messagesSent == 1)
                }
                #expect(subscriber.statistics.messagesReceived == 1)
            }
        }
    }

    /// A handler subscription is called on the network thread, in order, and may `send` from
    /// there (an echo: what a controller does with a command and its state); its sequence yields
    /// nothing and ends at `unsubscribe`, after which the handler is not called again.
    @Test func handlerSubscriptionEchoesFromTheNetworkThread() async throws {
        try await withMosquitto { broker in
            try await MQTTClient.withConnection(configuration(broker, "echo")) { echo in
                let seen = Mutex<[String]>([])
                let handled = try await echo.subscribe(to: "echo/in/+") { message in
                    seen.withLock { $0.append(message.string ?? "") }
                    _ = try? echo.send(MQTTMessage(topic: "echo/out", payload: message.payload, qos: .atLeastOnce, retain: false))
                }
                try await MQTTClient.withConnection(configuration(broker, "peer")) { peer in
                    let out = try await peer.subscribe(to: "echo/out")
                    for n in 1...20 { try await peer.publish(to: "echo/in/\(n % 3)", payload: "\(n)", qos: .atLeastOnce) }
                    try await peer.publish(to: "echo/in/x", payload: "end", qos: .atLeastOnce)
                    #expect(try await collect(out, until: "end") == (1...20).map(String.init))
                    #expect(seen.withLock { $0 } == (1...20).map(String.init) + ["end"])

                    try await echo.unsubscribe(handled)
                    var ended = handled.makeAsyncIterator()
                    #expect(try await ended.next() == nil, "the sequence ends, without messages")
                    try await peer.publish(to: "echo/in/1", payload: "late", qos: .atLeastOnce)
                    // A message that still comes is for nobody: the peer's own echo of it never arrives.
                    try await peer.publish(to: "echo/out", payload: "fence", qos: .atLeastOnce)
                    #expect(try await next(out, "the fence").string == "fence")
                    #expect(seen.withLock { $0.count } == 21)
                }
            }
        }
    }

    /// A handler's `send` is written before `send` returns, not once the handler is done: a
    /// command's state leaves before the rest of the command runs. Each call of the handler waits
    /// (5 s at most) until the peer has its echo, which with the packet written after the handler
    /// would never happen in time. QoS 0 too: its write reports back through libmosquitto's
    /// callback lock, which a handler no longer runs under.
    @Test(arguments: [MQTTQoS.atMostOnce, .atLeastOnce])
    func aHandlersSendLeavesBeforeTheHandlerReturns(qos: MQTTQoS) async throws {
        try await withMosquitto { broker in
            try await MQTTClient.withConnection(configuration(broker, "peer")) { peer in
                let arrived = DispatchSemaphore(value: 0)
                let last = Mutex<[UInt8]>([])
                let out = try await peer.subscribe(to: "early/out", qos: qos) { message in
                    last.withLock { $0 = message.payload }
                    arrived.signal()
                }
                try await MQTTClient.withConnection(configuration(broker, "echo")) { echo in
                    let (answers, answered) = AsyncStream.makeStream(of: Bool.self)
                    let handled = try await echo.subscribe(to: "early/in", qos: qos) { message in
                        _ = try? echo.send(MQTTMessage(topic: "early/out", payload: message.payload, qos: qos, retain: false))
                        let echoed = arrived.wait(timeout: .now() + 5) == .success
                        answered.yield(echoed && last.withLock { $0 } == message.payload)
                    }
                    for n in 1...3 { try await peer.publish(to: "early/in", payload: "\(n)", qos: .atLeastOnce) }
                    let seen = try await withTimeout(.seconds(30), "three handler calls") {
                        var seen: [Bool] = []
                        for await answer in answers {
                            seen.append(answer)
                            if seen.count == 3 { break }
                        }
                        return seen
                    }
                    #expect(seen == [true, true, true], "the peer had each echo while the handler still ran")
                    #expect(echo.statistics.messagesSent == 3)
                    try await echo.unsubscribe(handled)
                }
                try await peer.unsubscribe(out)
            }
        }
    }

    /// Packets queued from many threads at once all go out, each thread's in order: the network
    /// thread is woken once for many of them (`MosquittoNetworkThread.packetQueued`), and what
    /// goes past the in-flight window leaves from inside the PUBACK callback, on that thread.
    @Test func sendsFromManyThreadsAtOnceAllLeaveInOrder() async throws {
        let senders = 6, each = 150
        try await withMosquitto { broker in
            try await MQTTClient.withConnection(configuration(broker, "sub")) { subscriber in
                let subscription = try await subscriber.subscribe(to: "many/+", qos: .atLeastOnce)
                try await MQTTClient.withConnection(configuration(broker, "pub")) { publisher in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for sender in 0..<senders {
                            group.addTask {
                                for n in 0..<each {
                                    _ = try publisher.send(MQTTMessage(topic: "many/\(sender)", string: "\(n)", qos: .atLeastOnce))
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                    var received: [String: [Int]] = [:]
                    for _ in 0..<(senders * each) {
                        let message = try await next(subscription, "message \(received.values.map(\.count).reduce(0, +) + 1) of \(senders * each)")
                        received[message.topic, default: []].append(Int(message.string ?? "") ?? -1)
                    }
                    for sender in 0..<senders {
                        #expect(received["many/\(sender)"] == Array(0..<each), "sender \(sender)")
                    }
                }
            }
        }
    }

    /// A connection whose socket is above descriptor 1023 works: the network thread waits with
    /// `poll`, where libmosquitto's own loop waits with `select()` and cannot watch it (a daemon
    /// with many page viewers and peers open, or hundreds of tests at once, did not connect).
    @Test func aSocketAboveDescriptor1023Works() async throws {
        let held = HeldDescriptors(limit: 1400)
        defer { held.release() }
        try await withMosquitto { broker in
            // Every free descriptor below 1200 taken, so that the client's socket comes above.
            // Other tests close descriptors all the time, and the socket takes the lowest free
            // one: taken again and connected again until it is above.
            for attempt in 1...20 {
                try held.takeAll(below: 1200)
                let done = try await MQTTClient.withConnection(configuration(broker, "high")) { client -> Bool in
                    // Where this connection's socket is: the one whose peer is the broker's port.
                    let sockets = connectedSockets(toPort: broker.port)
                    guard sockets.contains(where: { $0 > 1023 }) else {
                        try #require(attempt < 20, "the client's socket is at \(sockets) after \(attempt) attempts")
                        return false
                    }
                    let subscription = try await client.subscribe(to: "high/echo", qos: .atLeastOnce)
                    #expect(try await client.publish(to: "high/echo", payload: "up", qos: .atLeastOnce) == .delivered)
                    #expect(try await next(subscription).string == "up")
                    return true
                }
                if done { return }
            }
        }
    }

    /// The fixtures start their programs (mosquitto, mosquitto_passwd) with 2,000 descriptors
    /// open, and a client connects and publishes beside them. Hundreds of tests at once hold that
    /// many: Foundation's `Process.run()` (6.3) then read past the end of its listing of
    /// /proc/self/fd and crashed the test process (SIGSEGV), one run in a few; `SpawnedProcess`
    /// spawns without it, and the child keeps none of the descriptors.
    @Test func fixturesStartTheirProgramsWith2000DescriptorsOpen() async throws {
        let held = HeldDescriptors(limit: 2600)
        defer { held.release() }
        try held.takeAll(below: 2000)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Each start lists the descriptors again, one more open each time, so that the listing
        // ends at a different place of the directory buffer (before, about one run in three
        // crashed here).
        _ = try await MosquittoBroker.makePasswordFile(in: directory, username: "user", password: "secret")
        for _ in 0..<150 {
            try await ChildProcess.run("/bin/true", [])
            try held.takeAll(below: 0)
        }
        let inherited = try await ChildProcess.run("/bin/sh", ["-c", "ls /proc/self/fd | wc -l"])
        #expect((Int(inherited.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .max) < 10, "the child's descriptors: \(inherited)")
        try await withMosquitto { broker in
            try await MQTTClient.withConnection(configuration(broker, "crowded")) { client in
                let subscription = try await client.subscribe(to: "crowded/echo", qos: .atLeastOnce)
                #expect(try await client.publish(to: "crowded/echo", payload: "up", qos: .atLeastOnce) == .delivered)
                #expect(try await next(subscription).string == "up")
            }
        }
    }

    /// `send` hands a message over without waiting: `.sent` when connected, delivered all the same.
    @Test func sendReturnsAtOnceAndDelivers() async throws {
        try await withMosquitto { broker in
            try await MQTTClient.withConnection(configuration(broker, "sub")) { subscriber in
                let subscription = try await subscriber.subscribe(to: "send/+")
                try await MQTTClient.withConnection(configuration(broker, "pub")) { publisher in
                    let first = try publisher.send(MQTTMessage(topic: "send/1", string: "a", qos: .atLeastOnce))
                    let second = try publisher.send(MQTTMessage(topic: "send/2", string: "b", qos: .atMostOnce))
                    #expect(first == .sent && second == .sent)
                    #expect(throws: MQTTError.self) { try publisher.send(MQTTMessage(topic: "send/#", string: "c")) }
                    let a = try await next(subscription), b = try await next(subscription)
                    #expect(a.string == "a" && b.string == "b")
                }
            }
        }
    }

    @Test func retainedMessageIsDeliveredOnSubscribe() async throws {
        try await withMosquitto { broker in
            try await MQTTClient.withConnection(configuration(broker, "pub")) { publisher in
                try await publisher.publish(to: "house/hall/light/state", payload: "ON", qos: .atLeastOnce, retain: true)
            }
            try await MQTTClient.withConnection(configuration(broker, "late")) { late in
                let subscription = try await late.subscribe(to: "house/+/light/state")
                let message = try await next(subscription, "the retained state")
                #expect(message.string == "ON")
                #expect(message.retain)
                #expect(message.topic == "house/hall/light/state")
            }
        }
    }

    /// An MQTT 5 broker sends a message once per matching subscription: the client's own
    /// subscription identifiers take each copy to its filter's subscriptions only.
    @Test(arguments: MQTTProtocolVersion.allCases)
    func wildcardAndOverlappingSubscriptions(version: MQTTProtocolVersion) async throws {
        try await withMosquitto { broker in
            try await MQTTClient.withConnection(configuration(broker, "sub", version)) { subscriber in
                let plus = try await subscriber.subscribe(to: "house/+/light")
                let hash = try await subscriber.subscribe(to: "house/#")
                try await MQTTClient.withConnection(configuration(broker, "pub")) { publisher in
                    for (topic, payload) in [("house/kitchen/light", "1"), ("house/kitchen/fan", "2"),
                                             ("house/a/b/light", "3"), ("garden/light", "4"), ("house/end/light", "end")] {
                        try await publisher.publish(to: topic, payload: payload, qos: .atLeastOnce)
                    }
                    // "1" matches both overlapping filters: each subscription gets it exactly once.
                    #expect(try await collect(plus, until: "end") == ["1"])
                    #expect(try await collect(hash, until: "end") == ["1", "2", "3"])

                    try await subscriber.unsubscribe(plus)
                    var ended = plus.makeAsyncIterator()
                    #expect(try await ended.next() == nil)
                    try await publisher.publish(to: "house/x/light", payload: "after", qos: .atLeastOnce)
                    try await publisher.publish(to: "house/end2", payload: "end2", qos: .atLeastOnce)
                    #expect(try await collect(hash, until: "end2") == ["after"])
                    #expect(subscriber.activeSubscriptionCount == 1)
                }
            }
        }
    }

    @Test func lastWillOnDeathWithoutDisconnectAndBirthAfterReconnect() async throws {
        try await withMosquitto { broker in
            try await MQTTClient.withConnection(configuration(broker, "watcher")) { watcher in
                let status = try await watcher.subscribe(to: "house/node/n1/status")
                var nodeConfiguration = configuration(broker, "node")
                nodeConfiguration.lastWill = MQTTMessage(topic: "house/node/n1/status", string: "offline", qos: .atLeastOnce, retain: true)
                nodeConfiguration.birthMessage = MQTTMessage(topic: "house/node/n1/status", string: "online", qos: .atLeastOnce, retain: true)
                nodeConfiguration.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(300), maximumDelay: .seconds(1))
                let node = try MQTTClient(configuration: nodeConfiguration)
                try await node.connect()
                #expect(try await next(status, "birth").string == "online")

                node.abortConnectionForTesting()  // the TCP path dies, no DISCONNECT
                let will = try await next(status, "last will")
                #expect(will.string == "offline")
                try await waitUntil(node, "the node to reconnect") { node.statistics.connects == 2 && node.connectionState.isConnected }
                #expect(node.statistics.connectionLosses == 1)

                await node.disconnect()  // orderly: waits for the birth's PUBACK, sends DISCONNECT, no will
                try await watcher.publish(to: "house/node/n1/status", payload: "sentinel", qos: .atLeastOnce)
                let afterWill = try await collect(status, until: "sentinel")
                // The birth is re-published after the reconnect (libmosquitto may also resend the
                // first birth if its PUBACK was lost with the connection: QoS 1 is at least once).
                #expect(!afterWill.isEmpty)
                #expect(afterWill.allSatisfy { $0 == "online" }, "an orderly disconnect must not trigger the last will: \(afterWill)\n\(broker.log())")
            }
        }
    }

    @Test func brokerKilledAndRestartedWhileSubscriberAndPublisherRun() async throws {
        try await withMosquitto { broker in
            let subscriber = try MQTTClient(configuration: configuration(broker, "sub"))
            try await subscriber.connect()
            let subscription = try await subscriber.subscribe(to: "restart/#", qos: .atLeastOnce)

            let clock = ManualClock(start: Date(timeIntervalSince1970: 0))
            var publisherConfiguration = configuration(broker, "pub")
            publisherConfiguration.reconnect = MQTTReconnectPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(2), jitter: 0)
            let publisher = try MQTTClient(configuration: publisherConfiguration, clock: clock)
            try await publisher.connect()
            #expect(try await publisher.publish(to: "restart/before", payload: "0", qos: .atLeastOnce) == .delivered)
            #expect(try await next(subscription).string == "0")

            await broker.kill()
            try await waitFor(publisher, "the publisher to notice the loss", isDisconnected)
            await clock.waitForSleepers(1)  // its reconnect backoff, on the manual clock
            #expect(try await publisher.publish(to: "restart/q", payload: "A", qos: .atLeastOnce, timeToLive: .seconds(60)) == .queued)
            #expect(try await publisher.publish(to: "restart/q", payload: "B", qos: .atLeastOnce, timeToLive: .seconds(5)) == .queued)
            #expect(try await publisher.publish(to: "restart/q", payload: "C", qos: .atLeastOnce, timeToLive: .seconds(60)) == .queued)
            #expect(publisher.statistics.offlineQueueDepth == 3)

            try await broker.restart()
            // The subscriber reconnects on its own and re-subscribes; prove it with a probe.
            try await waitFor(subscriber, "the subscriber to reconnect") { $0.isConnected }
            try await subscriber.publish(to: "restart/probe", payload: "probe", qos: .atLeastOnce)
            #expect(try await next(subscription, "probe").string == "probe")

            clock.advance(by: .seconds(10))  // B's time to live runs out; the backoff ends
            try await waitFor(publisher, "the publisher to reconnect") { $0.isConnected }
            #expect(try await publisher.publish(to: "restart/end", payload: "end", qos: .atLeastOnce) == .delivered)
            #expect(try await collect(subscription, until: "end") == ["A", "C"])

            let stats = publisher.statistics
            #expect(stats.messagesExpired == 1)
            #expect(stats.messagesFlushed == 2)
            #expect(stats.offlineQueueDepth == 0)
            #expect(stats.connects == 2)
            #expect(stats.connectionLosses == 1)
            #expect(subscriber.statistics.connectionLosses == 1)
            await publisher.disconnect()
            await subscriber.disconnect()
            #expect(subscriber.connectionState == .closed)
        }
    }
}

@Suite("MQTT client started before its broker", .enabled(if: MosquittoBroker.shouldRun, "mosquitto not installed (CI=true makes this a failure)"), .timeLimit(.minutes(2)))
struct EarlyStartTests {
    @Test func runKeepsTryingAndSendsSubscriptionsAndQueuedMessagesOnceTheBrokerIsUp() async throws {
        let closed = try ClosedPort()
        let port = closed.port
        let client = try MQTTClient(configuration: MQTTConfiguration(
            host: "127.0.0.1", port: port, clientID: "early-\(UUID().uuidString.prefix(8))",
            reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(300))))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await client.run() }
            let subscription = try await client.subscribe(to: "early/#", qos: .atLeastOnce)
            #expect(subscription.grantedQoS == nil)  // not connected yet: sent with the CONNACK
            #expect(try await client.publish(to: "early/hello", payload: "queued", qos: .atLeastOnce) == .queued)
            try await waitUntil(client, "a failed attempt") { client.statistics.failedConnectAttempts >= 1 }

            closed.release()
            let broker = try await MosquittoBroker.start(port: port)
            do {
                let message = try await next(subscription, "the queued message, delivered back to us")
                #expect(message.string == "queued")
                #expect(client.statistics.messagesFlushed == 1)
                #expect(client.connectionState.isConnected)
            } catch {
                await broker.stop()
                throw error
            }
            await client.disconnect()  // run() returns
            try await group.waitForAll()
            await broker.stop()
        }
        #expect(client.connectionState == .closed)
    }
}
