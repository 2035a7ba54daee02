import MQTTTopics
import HouseBroker
import HouseTesting
import Testing

@Suite("Interoperability with Debian mosquitto_pub / mosquitto_sub", .enabled(if: MosquittoProcess.shouldRun))
struct MosquittoInteropTests {
    @Test("mosquitto_sub receives mosquitto_pub messages at QoS 0, 1 and 2", arguments: [0, 1, 2])
    func pubSub(qos: Int) async throws {
        try MosquittoProcess.requireTools()
        try await withTestBroker { broker in
            let sub = try MosquittoProcess.subscribe(port: broker.port, clientID: "msub", [
                "-t", "interop/#", "-q", "\(qos)", "-C", "3", "-W", "15"])
            try await broker.waitForSubscription(clientID: "msub", filter: "interop/#")
            for i in 1...3 {
                try await MosquittoProcess.publish(port: broker.port, ["-t", "interop/\(i)", "-m", "m\(i)", "-q", "\(qos)"])
            }
            #expect(try await sub.waitForExit() == 0)
            #expect(sub.output.split(separator: "\n") == ["0 \(qos) interop/1 m1", "0 \(qos) interop/2 m2", "0 \(qos) interop/3 m3"])
            let received = await broker.receivedMessages()
            #expect(received.map(\.qos.rawValue) == [UInt8(qos), UInt8(qos), UInt8(qos)])
        }
    }

    @Test("retained messages set by mosquitto_pub reach a later mosquitto_sub with the retain flag; empty clears")
    func retained() async throws {
        try MosquittoProcess.requireTools()
        try await withTestBroker { broker in
            try await MosquittoProcess.publish(port: broker.port, ["-t", "house/lamp/state", "-m", "ON", "-r", "-q", "1"])
            let sub = try MosquittoProcess.subscribe(port: broker.port, clientID: "late", [
                "-t", "house/+/state", "-q", "1", "-C", "1", "-W", "15"])
            #expect(try await sub.waitForExit() == 0)
            #expect(sub.output == "1 1 house/lamp/state ON\n")

            try await MosquittoProcess.publish(port: broker.port, ["-t", "house/lamp/state", "-n", "-r"])
            try await broker.waitUntil { $0.retained.isEmpty }
        }
    }

    @Test("a killed mosquitto_sub's will is delivered; a clean exit sends none")
    func will() async throws {
        try MosquittoProcess.requireTools()
        try await withTestBroker { broker in
            let watcher = try MosquittoProcess.subscribe(port: broker.port, clientID: "watcher", [
                "-t", "status/#", "-q", "1", "-C", "1", "-W", "15"])
            try await broker.waitForSubscription(clientID: "watcher", filter: "status/#")

            // Exits cleanly with DISCONNECT after one message: no will.
            let polite = try MosquittoProcess.subscribe(port: broker.port, clientID: "polite", [
                "-t", "ping", "-C", "1", "-W", "15", "--will-topic", "status/polite", "--will-payload", "never"])
            try await broker.waitForSubscription(clientID: "polite", filter: "ping")
            try await MosquittoProcess.publish(port: broker.port, ["-t", "ping", "-m", "x"])
            #expect(try await polite.waitForExit() == 0)
            try await broker.waitForDisconnect("polite")

            let victim = try MosquittoProcess.subscribe(port: broker.port, clientID: "victim", [
                "-t", "nothing", "--will-topic", "status/victim", "--will-payload", "offline", "--will-qos", "1"])
            try await broker.waitForSubscription(clientID: "victim", filter: "nothing")
            victim.kill()
            #expect(try await watcher.waitForExit() == 0)
            #expect(watcher.output == "0 1 status/victim offline\n")
        }
    }

    @Test("our raw client and mosquitto_pub interoperate through a persistent mosquitto_sub session")
    func persistentSession() async throws {
        try MosquittoProcess.requireTools()
        try await withTestBroker { broker in
            // -c: clean session 0. First run subscribes and exits after one message.
            let first = try MosquittoProcess.subscribe(port: broker.port, clientID: "keeper", [
                "-c", "-t", "keep/#", "-q", "2", "-C", "1", "-W", "15"])
            try await broker.waitForSubscription(clientID: "keeper", filter: "keep/#")
            try await MosquittoProcess.publish(port: broker.port, ["-t", "keep/1", "-m", "first", "-q", "2"])
            #expect(try await first.waitForExit() == 0)
            try await broker.waitForDisconnect("keeper")

            // Published while it is away, at QoS 1 and 2: queued.
            let raw = try await RawMQTTClient.connect(port: broker.port, clientID: "raw")
            try await raw.publish("keep/2", "second", qos: 1)
            try await MosquittoProcess.publish(port: broker.port, ["-t", "keep/3", "-m", "third", "-q", "2"])
            try await broker.waitUntil { $0.sessions["keeper"]?.queuedCount == 2 }

            let second = try MosquittoProcess.subscribe(port: broker.port, clientID: "keeper", [
                "-c", "-t", "keep/#", "-q", "2", "-C", "2", "-W", "15"])
            #expect(try await second.waitForExit() == 0)
            #expect(second.output == "0 1 keep/2 second\n0 2 keep/3 third\n")
        }
    }

    @Test("MQTT 5: mosquitto_pub's properties reach mosquitto_sub through our broker, with its subscription identifier")
    func mqtt5Properties() async throws {
        try MosquittoProcess.requireTools()
        try await withTestBroker { broker in
            let sub = try MosquittoProcess.subscribe(port: broker.port, clientID: "msub5", [
                "-V", "mqttv5", "-t", "v5/#", "-q", "1", "-C", "1", "-W", "15",
                "-D", "subscribe", "subscription-identifier", "7", "-F", "%t %p %P %C %E %R %S"])
            try await broker.waitForSubscription(clientID: "msub5", filter: "v5/#")
            let info = try await broker.waitForClient("msub5")
            #expect(info.protocolVersion == .v5)
            #expect(info.subscriptionOptions["v5/#"]?.identifier == 7)
            try await MosquittoProcess.publish(port: broker.port, [
                "-V", "mqttv5", "-t", "v5/lamp", "-m", "ON", "-q", "1",
                "-D", "publish", "user-property", "room", "hall",
                "-D", "publish", "content-type", "text/plain",
                "-D", "publish", "message-expiry-interval", "30",
                "-D", "publish", "response-topic", "v5/replies"])
            #expect(try await sub.waitForExit() == 0)
            #expect(sub.output == "v5/lamp ON room:hall text/plain 30 v5/replies 7\n")
            let recorded = try #require(await broker.receivedMessages().last?.properties)
            #expect(recorded.userProperties == [MQTTUserProperty("room", "hall")])
            #expect(recorded.messageExpiryInterval == 30)
        }
    }

    @Test("MQTT 5: a mosquitto_sub session with an expiry interval gets what was published while it was away")
    func mqtt5SessionExpiry() async throws {
        try MosquittoProcess.requireTools()
        try await withTestBroker { broker in
            // -c keeps the session; -x gives it an expiry interval.
            let first = try MosquittoProcess.subscribe(port: broker.port, clientID: "keeper5", [
                "-V", "mqttv5", "-c", "-x", "60", "-t", "keep5/#", "-q", "1", "-C", "1", "-W", "15"])
            try await broker.waitForSubscription(clientID: "keeper5", filter: "keep5/#")
            try await MosquittoProcess.publish(port: broker.port, ["-V", "mqttv5", "-t", "keep5/1", "-m", "first", "-q", "1"])
            #expect(try await first.waitForExit() == 0)
            let away = try await broker.waitUntil { $0.sessions["keeper5"]?.isConnected == false }
            #expect(away.sessions["keeper5"]?.sessionExpiryInterval == 60)

            try await MosquittoProcess.publish(port: broker.port, ["-V", "mqttv5", "-t", "keep5/2", "-m", "second", "-q", "1"])
            try await broker.waitUntil { $0.sessions["keeper5"]?.queuedCount == 1 }
            let second = try MosquittoProcess.subscribe(port: broker.port, clientID: "keeper5", [
                "-V", "mqttv5", "-c", "-x", "60", "-t", "keep5/#", "-q", "1", "-C", "1", "-W", "15"])
            #expect(try await second.waitForExit() == 0)
            #expect(second.output == "0 1 keep5/2 second\n")
        }
    }
}
