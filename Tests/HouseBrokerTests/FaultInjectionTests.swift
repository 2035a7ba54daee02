import HouseBroker
import HouseTesting
import Testing

@Suite("Fault injection and lifecycle")
struct FaultInjectionTests {
    @Test("dropAllConnections closes everyone like a network failure: wills fire, persistent sessions stay")
    func dropAll() async throws {
        try await withTestBroker { broker in
            let a = try await RawMQTTClient.connect(port: broker.port, clientID: "a", cleanSession: false,
                                                    will: .init(topic: "status/a", payload: Array("lost".utf8), retain: true))
            try await a.subscribe("x", qos: 1)
            let b = try await RawMQTTClient.connect(port: broker.port, clientID: "b")
            await broker.dropAllConnections()
            try await a.expectClosed()
            try await b.expectClosed()
            let snapshot = try await broker.waitUntil { $0.connectedClients.isEmpty && $0.retained["status/a"] != nil }
            #expect(snapshot.sessions["a"]?.subscriptions == ["x": .atLeastOnce])
            #expect(snapshot.sessions["b"] == nil)
            #expect(snapshot.retained["status/a"]?.payloadString == "lost")
            #expect(snapshot.isRunning)
            _ = try await RawMQTTClient.connect(port: broker.port, clientID: "a", cleanSession: false, expectSessionPresent: true)
        }
    }

    @Test("pauseReading stalls every client until resumeReading")
    func pauseAndResume() async throws {
        try await withTestBroker { broker in
            let subscriber = try await RawMQTTClient.connect(port: broker.port, clientID: "sub")
            try await subscriber.subscribe("p")
            let publisher = try await RawMQTTClient.connect(port: broker.port, clientID: "pub")
            await broker.pauseReading()
            try await publisher.send(RawMQTT.publish(topic: "p", "held", qos: 1, packetID: 3))
            // Nothing is read while paused: no PUBACK arrives.
            await #expect(throws: RawClientError.self) { try await publisher.next(timeout: .milliseconds(300)) }
            #expect(await broker.receivedMessages().isEmpty)
            await broker.resumeReading()
            #expect(try await publisher.next() == .puback(3))
            #expect(try await subscriber.expectPublish().payloadString == "held")
        }
    }

    @Test("a new connection while paused is also not read until resumed")
    func pausedNewConnection() async throws {
        try await withTestBroker { broker in
            await broker.pauseReading()
            let client = try await RawMQTTClient.open(port: broker.port)
            try await client.send(RawMQTT.connect(clientID: "late"))
            await #expect(throws: RawClientError.self) { try await client.next(timeout: .milliseconds(300)) }
            await broker.resumeReading()
            #expect(try await client.next() == .connack(sessionPresent: false, code: 0))
        }
    }

    @Test("restart on the same port keeping retained messages and sessions")
    func restartKeeping() async throws {
        try await withTestBroker { broker in
            let port = broker.port
            let client = try await RawMQTTClient.connect(port: port, clientID: "keep", cleanSession: false)
            try await client.subscribe("k/#", qos: 1)
            try await client.send(RawMQTT.publish(topic: "k/r", "retained", qos: 1, retain: true, packetID: 1))
            // Routed to itself first (never acknowledged), then the PUBACK.
            _ = try await client.expectPublish()
            #expect(try await client.next() == .puback(1))
            try await broker.restart(keepingRetained: true, keepingSessions: true)
            try await client.expectClosed()
            #expect(broker.port == port)
            #expect(await broker.isRunning)
            let again = try await RawMQTTClient.connect(port: port, clientID: "keep", cleanSession: false,
                                                        expectSessionPresent: true)
            // The unacknowledged QoS 1 copy is redelivered with DUP.
            let redelivered = try await again.expectPublish()
            #expect(redelivered.dup && redelivered.payloadString == "retained")
            #expect(await broker.retainedMessages()["k/r"]?.payloadString == "retained")
        }
    }

    @Test("restart losing retained messages and sessions")
    func restartLosing() async throws {
        try await withTestBroker { broker in
            let client = try await RawMQTTClient.connect(port: broker.port, clientID: "lose", cleanSession: false)
            try await client.subscribe("l/#", qos: 1)
            try await client.publish("other", "retained", qos: 1, retain: true)
            try await broker.restart(keepingRetained: false, keepingSessions: false)
            try await client.expectClosed()
            let again = try await RawMQTTClient.connect(port: broker.port, clientID: "lose", cleanSession: false,
                                                        expectSessionPresent: false)
            try await again.subscribe("other")
            try await again.expectNothingPending()
            #expect(await broker.retainedMessages().isEmpty)
        }
    }

    @Test("shutdown closes clients without wills and refuses new connections")
    func shutdown() async throws {
        let broker = try await HouseBroker.start(host: "127.0.0.1", port: 0)
        let client = try await RawMQTTClient.connect(port: broker.port, clientID: "c",
                                                     will: .init(topic: "w", payload: Array("x".utf8), retain: true))
        await broker.shutdown()
        try await client.expectClosed()
        #expect(await broker.isRunning == false)
        #expect(await broker.retainedMessages().isEmpty)
        await #expect(throws: (any Error).self) { try await RawMQTTClient.open(port: broker.port) }
        await broker.shutdown()  // idempotent
    }

    @Test("binding a port in use fails with a clear error")
    func bindFailure() async throws {
        try await withTestBroker { broker in
            await #expect(throws: HouseBrokerError.self) {
                _ = try await HouseBroker.start(host: "127.0.0.1", port: broker.port)
            }
        }
    }
}
