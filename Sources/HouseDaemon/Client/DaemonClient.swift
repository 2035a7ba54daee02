import Foundation
import HouseCore
import HouseMQTT
import Logging

/// The CLI's way to the daemon: one request on `<base>/intent/request`, one answer on its own
/// reply topic, within a timeout. When nothing answers it says which broker and topic it tried
/// and how to start a controller.
public struct DaemonClient: Sendable {
    public var host: String
    public var port: Int
    public var baseTopic: String
    public var credentials: MQTTCredentials?
    public var tls: MQTTTLSConfiguration?
    public var timeout: Duration
    /// The MQTT version to speak (`mqtt.protocol`; MQTT 5 falls back to 3.1.1 by itself).
    public var protocolVersion: MQTTProtocolVersion = .v5

    public init(host: String, port: Int, baseTopic: String = "house", credentials: MQTTCredentials? = nil,
                tls: MQTTTLSConfiguration? = nil, timeout: Duration = .seconds(5)) {
        self.host = host
        self.port = port
        self.baseTopic = baseTopic
        self.credentials = credentials
        self.tls = tls
        self.timeout = timeout
    }

    /// The broker of a configuration (or `HOST:PORT` given on the command line).
    public init(configuration: HouseConfiguration, broker: String? = nil, timeout: Duration = .seconds(5)) throws(DaemonError) {
        var host = "127.0.0.1"
        var port = 1883
        if let broker {
            guard let hp = DaemonOptions.parseHostPort(broker) else {
                throw .startup("--broker expects HOST:PORT, not \"\(broker)\"")
            }
            (host, port) = hp
        } else {
            (host, port) = configuration.mqtt.localEndpoint
        }
        var credentials: MQTTCredentials? = nil
        if let user = configuration.mqtt.username {
            credentials = MQTTCredentials(
                username: user,
                password: configuration.mqtt.passwordFile.map { .file($0) } ?? configuration.mqtt.passwordEnv.map { .environment($0) } ?? .none)
        }
        let tls = configuration.mqtt.tls.map {
            MQTTTLSConfiguration(caFile: $0.caFile, certificateFile: $0.certFile, keyFile: $0.keyFile,
                                 verifyPeer: $0.verify, verifyHostname: $0.verify)
        }
        self.init(host: host, port: port, baseTopic: configuration.mqtt.baseTopic, credentials: credentials, tls: tls,
                  timeout: timeout)
        protocolVersion = configuration.mqtt.protocolVersion == .v311 ? .v311 : .v5
    }

    var layout: TopicLayout { TopicLayout(base: baseTopic) }

    /// The command line reports errors itself; the client's own connect/disconnect lines stay quiet.
    static var quietLogger: Logger {
        var logger = Logger(label: "housectl.client")
        logger.logLevel = .critical
        return logger
    }

    /// Sends a request and returns the daemon's answer.
    public func send(_ body: IntentRequest.Body, answers: IntentAnswers = .none) async throws(DaemonError) -> IntentReply {
        let id = "cli-" + UUID().uuidString.lowercased().prefix(12)
        let replyTopic = layout.intentResponse(id: String(id))
        let payload = IntentRequestEncoder.payload(id: String(id), body: body, answers: answers, replyTo: replyTopic)
        let endpoint = "\(host):\(port)"
        let client: MQTTClient
        do {
            var configuration = MQTTConfiguration(
                host: host, port: port, clientID: MQTTConfiguration.randomClientID(), cleanSession: true,
                credentials: credentials, tls: tls, connectTimeout: timeout, offlineQueueCapacity: 0)
            configuration.protocolVersion = protocolVersion
            client = try MQTTClient(configuration: configuration, logger: Self.quietLogger)
        } catch {
            throw .startup("cannot set up an MQTT client for \(endpoint): \(error)")
        }
        do {
            try await client.connect()
        } catch {
            await client.disconnect()
            throw .startup("""
                cannot reach the MQTT broker at \(endpoint): \(error)
                Start the controller with `make run` (or `housectl serve --config config/house.yaml`), \
                or name the broker with --broker HOST:PORT.
                """)
        }
        let answer: MQTTMessage?
        do {
            let subscription = try await client.subscribe(to: replyTopic, qos: .atLeastOnce)
            try await client.publish(to: layout.cliRequest, payload: payload, qos: .atLeastOnce)
            answer = try await Self.first(of: subscription, within: timeout)
        } catch {
            await client.disconnect()
            throw .startup("request to \(layout.cliRequest) at \(endpoint) failed: \(error)")
        }
        await client.disconnect()
        guard let answer else {
            throw .startup("""
                no controller answered on \(layout.cliRequest) at \(endpoint) within \(DurationParser.format(timeout)).
                Is `housectl serve` running and connected to this broker? Start one with `make run`.
                """)
        }
        do {
            return try JSONDecoder().decode(IntentReply.self, from: Data(answer.payload))
        } catch {
            throw .malformedPayload(topic: answer.topic, reason: "the controller's answer is not an intent reply: \(error)")
        }
    }

    /// The first message of `subscription`, or nil when `timeout` passes first.
    static func first(of subscription: MQTTSubscription, within timeout: Duration) async throws -> MQTTMessage? {
        try await withThrowingTaskGroup(of: MQTTMessage?.self) { group in
            group.addTask {
                for try await message in subscription { return message }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
