import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// An MQTT 3.1.1 and MQTT 5 broker on SwiftNIO (the protocol level of each CONNECT chooses): a
/// real broker on the wire. `housectl serve` embeds it when
/// no broker is configured. Its inspection and fault injection for tests live in HouseBrokerTesting,
/// which reaches the broker's state through the `package` members here.
///
/// All state lives on one event loop (like mosquitto's single thread), so routing a message takes
/// no locks and no thread hops; the async methods here hop to that loop.
public final class HouseBroker: Sendable {
    /// The address the broker listens on.
    public let host: String
    /// The bound port (the chosen one when configured with port 0); restarts reuse it.
    public let port: Int

    /// The event loop all broker state lives on.
    package let loop: EventLoop
    /// The broker state; touch it only on `loop`.
    package let core: NIOLoopBound<BrokerCore>

    /// The bound port of the plain loopback listener, when configured (`Configuration.loopbackPort`).
    public let loopbackPort: Int?

    private init(host: String, port: Int, loopbackPort: Int?, loop: EventLoop, core: NIOLoopBound<BrokerCore>) {
        self.host = host
        self.port = port
        self.loopbackPort = loopbackPort
        self.loop = loop
        self.core = core
    }

    /// Starts a broker with `configuration` and returns once it listens.
    /// - Parameter eventLoopGroup: where to run; defaults to one loop of NIO's shared group.
    public static func start(_ configuration: Configuration,
                             eventLoopGroup: (any EventLoopGroup)? = nil) async throws -> HouseBroker {
        if !Configuration.isLoopback(configuration.host) && (configuration.passwordFile == nil || configuration.allowAnonymous) {
            throw HouseBrokerError.unauthenticatedListener(host: configuration.host)
        }
        let tlsContext = try configuration.tls.map(Self.tlsContext)
        let loop = (eventLoopGroup ?? MultiThreadedEventLoopGroup.singleton).next()
        let core = try await loop.submit {
            let core = NIOLoopBound(BrokerCore(loop: loop, configuration: configuration), eventLoop: loop)
            core.value.tlsContext = tlsContext
            return core
        }.get()
        let channel = try await bindListener(core: core, loop: loop, host: configuration.host, port: configuration.port)
        let port = channel.localAddress?.port ?? configuration.port
        var loopbackPort: Int? = nil
        if let local = configuration.loopbackPort {
            let plain = try await bindListener(core: core, loop: loop, host: "127.0.0.1", port: local, plain: true)
            loopbackPort = plain.localAddress?.port ?? local
            configuration.logger.info("MQTT broker also listening on 127.0.0.1:\(loopbackPort ?? local) for this machine's clients")
        }
        configuration.logger.info("MQTT broker listening on \(configuration.host):\(port)\(tlsContext == nil ? "" : " (TLS)")")
        if !Configuration.isLoopback(configuration.host) && tlsContext == nil {
            configuration.logger.warning("MQTT broker on \(configuration.host) without TLS: passwords and messages cross the network in the clear (give a certificate and key)")
        }
        return HouseBroker(host: configuration.host, port: port, loopbackPort: loopbackPort, loop: loop, core: core)
    }

    /// Starts a broker with default settings on `host:port` (port 0: any free port).
    public static func start(host: String = "127.0.0.1", port: Int = 0) async throws -> HouseBroker {
        try await start(Configuration(host: host, port: port))
    }

    /// Binds the listening socket on `host:port` and records it in `core`: the broker's listener
    /// (with TLS when configured), or with `plain` the loopback listener beside it.
    package static func bindListener(core: NIOLoopBound<BrokerCore>, loop: EventLoop, host: String, port: Int, plain: Bool = false) async throws -> Channel {
        let (maximumPacketSize, context) = try await loop.submit { (core.value.configuration.maximumPacketSize, core.value.tlsContext) }.get()
        let tls = plain ? nil : context
        let bootstrap = ServerBootstrap(group: loop)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(ChannelOptions.writeBufferWaterMark, value: .init(low: 64 * 1024, high: 512 * 1024))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let connection = MQTTConnection(core: core.value)
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
                    }
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(MQTTPacketDecoder(maximumPacketSize: maximumPacketSize)))
                    try channel.pipeline.syncOperations.addHandler(connection)
                }
            }
        let channel: Channel
        do {
            channel = try await bootstrap.bind(host: host, port: port).get()
        } catch {
            throw HouseBrokerError.bindFailed(host: host, port: port, reason: "\(error)")
        }
        try await loop.submit {
            if plain { core.value.loopbackChannel = channel } else { core.value.serverChannel = channel }
            core.value.isShutDown = false
        }.get()
        return channel
    }

    /// The server side of TLS from a certificate chain and a key in PEM files.
    static func tlsContext(_ tls: Configuration.TLS) throws -> NIOSSLContext {
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(tls.certificateFile)
            guard !chain.isEmpty else { throw HouseBrokerError.tlsSetup("\(tls.certificateFile) holds no PEM certificate") }
            let key = try NIOSSLPrivateKey(file: tls.keyFile, format: .pem)
            var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            configuration.minimumTLSVersion = .tlsv12
            return try NIOSSLContext(configuration: configuration)
        } catch let error as HouseBrokerError {
            throw error
        } catch {
            throw HouseBrokerError.tlsSetup("certificate \(tls.certificateFile), key \(tls.keyFile): \(error)")
        }
    }

    /// Runs `body` on the broker's loop and flushes what it wrote.
    package func onLoop<T: Sendable>(_ body: @escaping @Sendable (BrokerCore) throws -> T) async throws -> T {
        let core = self.core
        return try await loop.submit {
            let result = try body(core.value)
            core.value.finishEvent()
            return result
        }.get()
    }

    /// Stops listening and closes every connection without publishing wills; state is kept.
    /// Idempotent. After `shutdown()` the broker can still be `restart`ed.
    public func shutdown() async {
        let channels = try? await onLoop { core -> [Channel] in
            core.isShutDown = true
            core.suppressWills = true
            let channels = [core.serverChannel, core.loopbackChannel].compactMap { $0 }
            core.serverChannel = nil
            core.loopbackChannel = nil
            core.closeAllConnections(reason: .serverShuttingDown)
            return channels
        }
        for channel in channels ?? [] {
            try? await channel.close()
        }
        // Wait until every connection has gone, so a restart starts clean.
        _ = try? await waitForEvent(timeout: .seconds(5), "all connections closed") { $0.connectedCount == 0 ? () : nil }
        _ = try? await onLoop { core in
            for connection in core.connections.values { connection.close() }
            core.suppressWills = false
            core.logger.info("MQTT broker stopped")
        }
    }

    /// Whether the broker is listening.
    public var isRunning: Bool {
        get async { (try? await onLoop { $0.serverChannel != nil }) ?? false }
    }
}

