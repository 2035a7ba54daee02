import ArgumentParser
import Dispatch
import Foundation
import HouseBroker
import HouseCore
import Logging

/// `housectl broker`: runs the built-in MQTT 3.1.1 and MQTT 5 broker in the foreground until SIGINT/SIGTERM.
struct BrokerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "broker",
        abstract: "Run the built-in MQTT broker (3.1.1 and 5 on one port) until interrupted.",
        discussion: """
            Password file: one 'user:password' per line, or 'user:$sha256$SALT$HEX' where HEX is the \
            SHA-256 of SALT followed by the password (printf '%s' SALTpassword | sha256sum). \
            ACL file: 'user NAME' lines followed by 'topic [read|write|readwrite] FILTER' lines; \
            'pattern ...' lines apply to everyone (%u user name, %c client id); lines before any \
            'user' apply to anonymous clients; 'topic deny FILTER' forbids FILTER's topics whatever \
            else grants them.

            Limits: what passes one is refused the MQTT way (SUBACK 0x80, a dropped publish, a \
            closed connection for an oversized packet; for MQTT 5 clients the reason code, such as \
            SUBACK 0x97 quota exceeded or DISCONNECT 0x95 packet too large) and logged with the \
            client id; the broker keeps serving everyone else. Sizes take K, M or G suffixes (powers of 1024). \
            docs/BROKER.md lists every bound.

            Beyond this machine (a --host other than 127.0.0.1, localhost or ::1) every client must \
            log in: the broker refuses to start without --password-file, or with --allow-anonymous. \
            Give it --tls-cert and --tls-key there too, or passwords cross the network in the clear.
            """
    )

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free one).")
    var port = 1883

    @Option(name: .customLong("password-file"), help: "Require these user names and passwords.")
    var passwordFile: String?

    @Flag(name: .customLong("allow-anonymous"), help: "With --password-file, still admit clients without a user name.")
    var allowAnonymous = false

    @Option(name: .customLong("acl"), help: "Limit publishing and subscribing to what this ACL file grants.")
    var aclFile: String?

    @Option(name: .customLong("max-queued"), help: "QoS 1/2 messages queued per client before new ones are dropped.")
    var maximumQueued = Self.defaults.maximumQueuedMessages

    @Option(name: .customLong("max-queued-bytes"), help: "Bytes queued per client (any QoS) before new messages are dropped.")
    var maximumQueuedBytes = ByteCount(Self.defaults.maximumQueuedBytes)

    @Option(name: .customLong("max-total-queued-bytes"), help: "Bytes queued and in flight for all clients together before new messages are dropped.")
    var maximumTotalQueuedBytes = ByteCount(Self.defaults.maximumTotalQueuedBytes)

    @Option(name: .customLong("persistent-session-expiry"), help: "How long an MQTT 3.1.1 session of clean session 0 is kept for its offline client (30d, 12h; 'never': until --max-offline-sessions pushes it out).")
    var persistentSessionExpiry = "30d"

    @Option(name: .customLong("max-offline-sessions"), help: "Sessions kept for offline clients; one more discards the one offline longest.")
    var maximumOfflineSessions = Self.defaults.maximumOfflineSessions

    @Option(name: .customLong("max-packet-size"), help: "Largest packet accepted; a larger one closes the sender's connection.")
    var maximumPacketSize = ByteCount(Self.defaults.maximumPacketSize)

    @Option(name: .customLong("max-topic-levels"), help: "Levels a topic or filter may have (mosquitto: 200).")
    var maximumTopicLevels = Self.defaults.maximumTopicLevels

    @Option(name: .customLong("max-topic-length"), help: "Bytes a topic or filter may have (at most 65535).")
    var maximumTopicLength = Self.defaults.maximumTopicLength

    @Option(name: .customLong("max-subscriptions"), help: "Subscriptions one client may hold.")
    var maximumSubscriptions = Self.defaults.maximumSubscriptionsPerClient

    @Option(name: .customLong("max-subscription-bytes"), help: "Estimated memory of one client's subscriptions.")
    var maximumSubscriptionBytes = ByteCount(Self.defaults.maximumSubscriptionBytesPerClient)

    @Option(name: .customLong("max-total-subscription-bytes"), help: "Estimated memory of all clients' subscriptions.")
    var maximumTotalSubscriptionBytes = ByteCount(Self.defaults.maximumSubscriptionBytes)

    @Option(name: .customLong("max-retained-bytes"), help: "Bytes of all retained messages; past it a message is delivered but not retained.")
    var maximumRetainedBytes = ByteCount(Self.defaults.maximumRetainedBytes)

    @Option(name: .customLong("max-connections"), help: "Connected clients; more are refused with CONNACK 3.")
    var maximumConnections = Self.defaults.maximumConnections

    @Option(name: .customLong("receive-maximum"), help: "MQTT 5: QoS 2 messages a client may send unreleased at once (told in CONNACK; more gets DISCONNECT 0x93).")
    var receiveMaximum = Self.defaults.receiveMaximum

    @Option(name: .customLong("max-topic-alias"), help: "MQTT 5: topic aliases per connection and direction (0: none).")
    var topicAliasMaximum = Self.defaults.topicAliasMaximum

    @Option(name: .customLong("max-keepalive"), help: "MQTT 5: the longest keepalive in seconds; a client asking more (or none) is told this one (Server Keep Alive). 65535 caps nothing.")
    var maximumKeepAlive = Self.defaults.maximumKeepAlive

    @Option(name: .customLong("tls-cert"), help: "Speak TLS only, with this certificate (PEM, with its chain; deploy/mosquitto/make-certs.sh makes one).")
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: "The private key (PEM) of --tls-cert.")
    var tlsKey: String?

    /// The library's defaults, so that `--help` shows what a broker without flags does.
    private static let defaults = HouseBroker.Configuration()

    @Flag(name: .shortAndLong, help: "Log connects, subscriptions and publishes.")
    var verbose = false

    func run() async throws {
        var logger = Logger(label: "housectl.broker", factory: { label in StreamLogHandler.standardError(label: label) })
        logger.logLevel = verbose ? .debug : .notice
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard (1...65535).contains(maximumTopicLevels) else { throw ValidationError("--max-topic-levels must be between 1 and 65535") }
        guard (1...65535).contains(maximumTopicLength) else { throw ValidationError("--max-topic-length must be between 1 and 65535") }
        guard (1...65535).contains(receiveMaximum) else { throw ValidationError("--receive-maximum must be between 1 and 65535") }
        guard (0...65535).contains(topicAliasMaximum) else { throw ValidationError("--max-topic-alias must be between 0 and 65535") }
        guard (1...65535).contains(maximumKeepAlive) else { throw ValidationError("--max-keepalive must be between 1 and 65535") }
        guard maximumOfflineSessions >= 0 else { throw ValidationError("--max-offline-sessions must be 0 or more") }
        let sessionExpiry: Duration?
        if persistentSessionExpiry.lowercased() == "never" {
            sessionExpiry = nil
        } else if let duration = DurationParser.parse(persistentSessionExpiry) {
            sessionExpiry = duration
        } else {
            throw ValidationError("--persistent-session-expiry must be a duration (30d, 12h, 90m) or 'never', not '\(persistentSessionExpiry)'")
        }
        guard maximumPacketSize.bytes >= 2, maximumPacketSize.bytes <= 268_435_455 else {
            throw ValidationError("--max-packet-size must be between 2 and 268435455 bytes (256MiB - 1)")
        }

        var configuration = HouseBroker.Configuration(host: host, port: port, logger: logger)
        do {
            configuration.passwordFile = try passwordFile.map { try PasswordFile(path: $0) }
            configuration.accessControl = try aclFile.map { try AccessControlList(path: $0) }
        } catch let error as HouseBrokerError {
            throw ValidationError(error.description)
        }
        configuration.allowAnonymous = allowAnonymous
        configuration.maximumQueuedMessages = maximumQueued
        configuration.maximumQueuedBytes = maximumQueuedBytes.bytes
        configuration.maximumTotalQueuedBytes = maximumTotalQueuedBytes.bytes
        configuration.persistentSessionExpiry = sessionExpiry
        configuration.maximumOfflineSessions = maximumOfflineSessions
        configuration.maximumPacketSize = maximumPacketSize.bytes
        configuration.maximumTopicLevels = maximumTopicLevels
        configuration.maximumTopicLength = maximumTopicLength
        configuration.maximumSubscriptionsPerClient = maximumSubscriptions
        configuration.maximumSubscriptionBytesPerClient = maximumSubscriptionBytes.bytes
        configuration.maximumSubscriptionBytes = maximumTotalSubscriptionBytes.bytes
        configuration.maximumRetainedBytes = maximumRetainedBytes.bytes
        configuration.maximumConnections = maximumConnections
        configuration.receiveMaximum = receiveMaximum
        configuration.topicAliasMaximum = topicAliasMaximum
        configuration.maximumKeepAlive = maximumKeepAlive
        configuration.recordedMessageLimit = 0
        switch (tlsCertificate, tlsKey) {
        case (let certificate?, let key?): configuration.tls = .init(certificateFile: certificate, keyFile: key)
        case (nil, nil): break
        default: throw ValidationError("--tls-cert and --tls-key go together")
        }

        let broker: HouseBroker
        do {
            broker = try await HouseBroker.start(configuration)
        } catch let error as HouseBrokerError {
            FileHandle.standardError.write(Data("housectl broker: \(error)\n".utf8))
            throw ExitCode.failure
        }
        let features = (tlsCertificate == nil ? "" : ", TLS") + (passwordFile == nil ? "" : ", passwords required")
            + (aclFile == nil ? "" : ", ACL in force")
        FileHandle.standardOutput.write(Data("housectl broker: MQTT 3.1.1 and 5 listening on \(host):\(broker.port)\(features) (Ctrl-C to stop)\n".utf8))
        let signal = await Self.waitForTerminationSignal()
        print("housectl broker: \(signal == SIGINT ? "SIGINT" : "SIGTERM"), shutting down")
        await broker.shutdown()
    }

    /// Suspends until SIGINT or SIGTERM arrives; returns which.
    private static func waitForTerminationSignal() async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let queue = DispatchQueue(label: "housectl.broker.signals")
            let lock = NSLock()
            nonisolated(unsafe) var done = false
            let numbers = [SIGINT, SIGTERM]
            let sources = numbers.map { DispatchSource.makeSignalSource(signal: $0, queue: queue) }
            for (number, source) in zip(numbers, sources) {
                Foundation.signal(number, SIG_IGN)
                source.setEventHandler {
                    lock.lock()
                    defer { lock.unlock() }
                    guard !done else { return }
                    done = true
                    sources.forEach { $0.cancel() }
                    continuation.resume(returning: number)
                }
            }
            sources.forEach { $0.resume() }
        }
    }
}
