import ArgumentParser
import Foundation
import HouseMQTT
import Logging

/// `housectl-bench echo --port P`: the echo client as a process of its own, the peer of row 9
/// (bench/cpu/callgrind.sh --echo runs it under valgrind as it runs `housectl serve`).
///
/// A plain `MQTTClient` that republishes every message it gets on `--set` onto `--state`,
/// retained and QoS 1 as the daemon publishes a state: two hops, like set -> daemon -> state,
/// and nothing else. The handler runs on the MQTT network thread, as the daemon's command
/// handler does, and `send`s without waiting for the PUBACK. At start it publishes a retained
/// "OFF" on `--state` (a subscriber then finds a state as it finds the daemon's), then logs
/// "echo: ready: ..." on stderr and runs until it is killed.
struct EchoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "echo",
        abstract: "Republish every message of a set topic onto a state topic (the echo client of row 9)."
    )

    @Option(name: .long, help: "The broker's host.")
    var host: String = "127.0.0.1"

    @Option(name: .long, help: "The broker's port.")
    var port: Int

    @Option(name: .long, help: "The topic to subscribe to.")
    var set: String = "house/kitchen/kitchen-light/set"

    @Option(name: .long, help: "The topic to republish onto (retained, QoS 1).")
    var state: String = "house/kitchen/kitchen-light/state"

    @Option(name: .long, help: "MQTT protocol version, 5 or 3 (3.1.1); 5 as the daemon's default.")
    var mqttVersion: Int = 5

    func validate() throws {
        guard [3, 5].contains(mqttVersion) else { throw ValidationError("--mqtt-version is 3 or 5") }
    }

    func run() async throws {
        var logger = Logger(label: "housectl-bench.echo")
        logger.logLevel = .warning
        var configuration = MQTTConfiguration(host: host, port: port, clientID: "bench-echo-\(getpid())")
        configuration.protocolVersion = mqttVersion == 3 ? .v311 : .v5
        let client = try MQTTClient(configuration: configuration, logger: logger)
        try await client.connect()
        try await client.publish(MQTTMessage(topic: state, string: "OFF", qos: .atLeastOnce, retain: true))
        let out = state
        let subscription = try await client.subscribe(to: set, qos: .atLeastOnce) { message in
            _ = try? client.send(MQTTMessage(topic: out, payload: message.payload, qos: .atLeastOnce, retain: true))
        }
        FileHandle.standardError.write(Data("echo: ready: republishing \(set) onto \(state) on \(host):\(port)\n".utf8))
        // Until killed (or the subscription ends with the connection).
        for try await _ in subscription {}
    }
}
