import HouseBroker
import HouseBrokerTesting
import HouseMQTT
import HouseTesting
import Testing

/// The intake valve (`IntakeValve`): while the client in the broker's process is behind, the
/// broker stops reading whoever publishes to it, for a bounded time; nothing is dropped, other
/// publishers and the client itself go on.
@Suite("The broker's intake valve", .timeLimit(.minutes(1)))
struct IntakeValveTests {
    func configuration(_ broker: HouseBroker, _ name: String) -> MQTTConfiguration {
        MQTTConfiguration(host: "127.0.0.1", port: broker.port, clientID: name, cleanSession: true)
    }

    /// A broker whose valve (`maximumPause`) guards the client "consumer", connected and
    /// subscribed to `cmd/#` (`commands`), and a connected client named `publisher`.
    func withValve(
        maximumPause: Duration, publisher name: String,
        _ body: (_ broker: HouseBroker, _ valve: IntakeValve, _ consumer: MQTTClient,
                 _ commands: MQTTSubscription, _ publisher: MQTTClient) async throws -> Void
    ) async throws {
        let valve = IntakeValve(clientID: "consumer", maximumPause: maximumPause)
        try await withTestBroker(configure: { $0.intakeValve = valve }) { broker in
            try await MQTTClient.withConnection(configuration(broker, "consumer")) { consumer in
                let commands = try await consumer.subscribe(to: "cmd/#", qos: .atLeastOnce)
                try await MQTTClient.withConnection(configuration(broker, name)) { publisher in
                    try await body(broker, valve, consumer, commands, publisher)
                }
            }
        }
    }

    @Test func aPublisherToTheClientWaitsWhileTheValveIsClosedAndGoesOnWhenItOpens() async throws {
        try await withValve(maximumPause: .seconds(60), publisher: "flooder") { broker, valve, _, commands, flooder in
            try await MQTTClient.withConnection(configuration(broker, "watcher")) { watcher in
                let other = try await watcher.subscribe(to: "other/#", qos: .atLeastOnce)
                try await MQTTClient.withConnection(configuration(broker, "bystander")) { bystander in
                    valve.close()
                    try flooder.send(MQTTMessage(topic: "cmd/a", string: "1"))
                    #expect(try await commands.next("the first command").string == "1", "what was read is delivered")
                    _ = try await broker.waitUntil("the flooder held back") { $0.statistics.publishersHeldBack == 1 }
                    try flooder.send(MQTTMessage(topic: "cmd/a", string: "2"))
                    try flooder.send(MQTTMessage(topic: "other/x", string: "3"))
                    // Another connection is read as usual; the flooder's socket is not.
                    try bystander.send(MQTTMessage(topic: "other/y", string: "bystander"))
                    #expect(try await other.next("the bystander's message").string == "bystander")
                    #expect(await broker.statistics().messagesReceived == 2, "the flooder's later messages wait in its socket")
                    valve.open()
                    #expect(try await commands.next("the second command").string == "2")
                    #expect(try await other.next("the flooder's other message").string == "3")
                    #expect(await broker.statistics().messagesDropped == 0)
                }
            }
        }
    }

    /// Packets read together with the one that holds their connection back are not handed on
    /// either: they wait as bytes in the connection's decoder (not as messages queued for the
    /// client) and come in order once the valve opens.
    @Test func theRestOfAReadWaitsUndecodedWhileHeldBack() async throws {
        try await withValve(maximumPause: .seconds(60), publisher: "unused") { broker, valve, _, commands, _ in
            let flooder = try await RawMQTTClient.connect(port: broker.port, clientID: "raw-flooder")
            valve.close()
            // One write: the broker reads the three PUBLISHes at once.
            try await flooder.send((1...3).flatMap { RawMQTT.publish(topic: "cmd/a", "\($0)") })
            #expect(try await commands.next("the first command").string == "1")
            _ = try await broker.waitUntil("the flooder held back") { $0.statistics.publishersHeldBack == 1 }
            #expect(await broker.statistics().messagesReceived == 1, "the rest of the read is not decoded")
            valve.open()
            #expect(try await commands.next("the second command").string == "2")
            #expect(try await commands.next("the third command").string == "3")
            #expect(await broker.statistics().messagesDropped == 0)
        }
    }

    /// A client that never catches up holds no publisher for good: after `maximumPause` its
    /// connection is read again (and held back again at its next message to the client).
    @Test func aPauseEndsAfterTheMaximumEvenIfTheValveStaysClosed() async throws {
        try await withValve(maximumPause: .milliseconds(100), publisher: "flooder") { broker, valve, _, commands, flooder in
            valve.close()
            try flooder.send(MQTTMessage(topic: "cmd/a", string: "1"))
            #expect(try await commands.next("command 1").string == "1")
            _ = try await broker.waitUntil("the flooder held back") { $0.statistics.publishersHeldBack == 1 }
            try flooder.send(MQTTMessage(topic: "cmd/a", string: "2"))
            #expect(try await commands.next("command 2, read once the pause ran out").string == "2")
            #expect(valve.isClosed)
            _ = try await broker.waitUntil("the flooder held back again") { $0.statistics.publishersHeldBack == 2 }
        }
    }

    /// The client itself is never held back, whatever it publishes (it must go on reading the
    /// answers to its own publishes), nor is anyone while the valve is open.
    @Test func theClientItselfAndPublishersWhileOpenAreNeverHeldBack() async throws {
        try await withValve(maximumPause: .seconds(60), publisher: "publisher") { broker, valve, consumer, commands, publisher in
            for n in 1...3 { try publisher.send(MQTTMessage(topic: "cmd/a", string: "open \(n)")) }
            for n in 1...3 { #expect(try await commands.next("command \(n)").string == "open \(n)") }
            valve.close()
            for n in 1...3 { try consumer.send(MQTTMessage(topic: "cmd/self", string: "own \(n)")) }
            for n in 1...3 { #expect(try await commands.next("own message \(n)").string == "own \(n)") }
            #expect(await broker.statistics().publishersHeldBack == 0)
        }
    }
}
