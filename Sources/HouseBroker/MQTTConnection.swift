import Logging
import NIOCore

/// One client's network connection: enforces the packet order of MQTT 3.1.1 and hands packets to
/// the `BrokerCore` on the same event loop. Any violation closes this connection only.
final class MQTTConnection: ChannelInboundHandler {
    typealias InboundIn = MQTTPacket
    typealias OutboundOut = ByteBuffer

    private let core: BrokerCore
    private var context: ChannelHandlerContext?
    /// The session once CONNECT was accepted.
    var session: Session?
    var will: WillMessage?
    private var hasReceivedConnect = false
    private var isClosing = false
    private var needsFlush = false
    private var connectTimeout: Scheduled<Void>?
    private(set) var remoteAddress: String?

    init(core: BrokerCore) {
        self.core = core
    }

    var isWritable: Bool { context?.channel.isWritable ?? false }

    // MARK: - Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelActive(context: ChannelHandlerContext) {
        remoteAddress = context.channel.remoteAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" }
        // Sockets that have not CONNECTed yet are bounded too: a flood of idle sockets is cut here.
        let pending = core.connections.count - core.connectedCount
        if pending >= core.configuration.maximumPendingConnections {
            core.statistics.connectionsRefused += 1
            core.logger.warning("closing connection from \(remoteAddress ?? "?") at once: \(pending) connections are waiting for their CONNECT, the limit")
            isClosing = true
            context.close(promise: nil)
            return
        }
        core.connections[ObjectIdentifier(self)] = self
        if core.readingPaused { setAutoRead(false) }
        armConnectTimeout(context.eventLoop)
        context.fireChannelActive()
    }

    /// Closes the connection if no CONNECT is read within `connectTimeout`. While reading is paused
    /// (fault injection) a CONNECT may be waiting unread: the silence is ours, so the wait starts again.
    private func armConnectTimeout(_ loop: EventLoop) {
        let timeout = core.configuration.connectTimeout
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        connectTimeout = loop.assumeIsolated().scheduleTask(in: .nanoseconds(nanoseconds)) { [self] in
            guard !hasReceivedConnect, !isClosing else { return }
            if core.readingPaused { return armConnectTimeout(loop) }
            core.logger.notice("closing connection from \(remoteAddress ?? "?"): no CONNECT within \(timeout)")
            close()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        connectTimeout?.cancel()
        isClosing = true
        core.connectionClosed(self)
        self.context = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isClosing else { return }
        let packet = unwrapInboundIn(data)
        guard let session else {
            guard case .connect(let connect) = packet, !hasReceivedConnect else {
                return protocolViolation("\(packet.name) before CONNECT (MQTT-3.1.0-1)")
            }
            hasReceivedConnect = true
            connectTimeout?.cancel()
            core.handleConnect(self, connect)
            return
        }
        switch packet {
        case .connect:
            protocolViolation("second CONNECT (MQTT-3.1.0-2)")
        case .publish(let publish):
            core.handlePublish(self, session, publish)
        case .puback, .pubrec, .pubcomp:
            core.handleAck(self, session, packet)
        case .pubrel(let id):
            core.handlePubrel(self, session, id)
        case .subscribe(let id, let filters):
            core.handleSubscribe(self, session, packetID: id, filters: filters)
        case .unsubscribe(let id, let filters):
            core.handleUnsubscribe(self, session, packetID: id, filters: filters)
        case .pingreq:
            send(.pingresp)
        case .disconnect:
            // A clean DISCONNECT discards the will (MQTT-3.14.4-3) and ends the connection.
            will = nil
            core.detach(self, publishWill: false)
            close()
        case .connack, .suback, .unsuback, .pingresp:
            protocolViolation("\(packet.name) is sent only by servers")
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        core.finishEvent()
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let session {
            core.drain(session)
            core.finishEvent()
        }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            // While reading is paused (fault injection) the silence is ours, not the client's.
            if core.readingPaused { return }
            core.logger.notice("client '\(session?.clientID ?? "?")' sent nothing within 1.5 times its keepalive; closing")
            close()
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case HouseBrokerError.unacceptableProtocolLevel = error, session == nil, !hasReceivedConnect {
            hasReceivedConnect = true
            core.statistics.connectionsRefused += 1
            core.logger.notice("refusing connection from \(remoteAddress ?? "?"): \(error) (CONNACK 1)")
            send(.connack(sessionPresent: false, returnCode: .unacceptableProtocolVersion))
            flushAndClose()
            return
        }
        if let error = error as? HouseBrokerError {
            protocolViolation(error.description)
        } else {
            core.logger.info("connection \(session.map { "of '\($0.clientID)'" } ?? "from \(remoteAddress ?? "?")") failed: \(error)")
            close()
        }
    }

    // MARK: - Actions used by the core

    /// Binds this connection to its session after CONNACK 0 is decided.
    func accept(session: Session, will: WillMessage?, keepAlive: UInt16) {
        self.session = session
        self.will = will
        if keepAlive > 0, let context {
            // Close after 1.5 times the keepalive without a packet (MQTT-3.1.2-24).
            let handler = IdleStateHandler(readTimeout: .milliseconds(Int64(keepAlive) * 1500))
            try? context.pipeline.syncOperations.addHandler(handler, position: .first)
        }
    }

    func send(_ packet: MQTTPacket) {
        guard let context, !isClosing else { return }
        var buffer = context.channel.allocator.buffer(capacity: Self.estimatedSize(packet))
        packet.encode(into: &buffer)
        context.write(wrapOutboundOut(buffer), promise: nil)
        if !needsFlush {
            needsFlush = true
            core.dirty.append(self)
        }
    }

    func flush() {
        needsFlush = false
        context?.flush()
    }

    func flushAndClose() {
        guard let context, !isClosing else { return }
        isClosing = true
        needsFlush = false
        context.flush()
        context.close(promise: nil)
    }

    func close() {
        guard let context, !isClosing else { return }
        isClosing = true
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        context.close(promise: nil)
    }

    func setAutoRead(_ enabled: Bool) {
        guard let context else { return }
        try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: enabled)
        if enabled { context.read() }
    }

    /// Closes this connection for a protocol violation (MQTT-4.8.0-1), logged with the client id
    /// and counted; nothing is answered.
    func protocolViolation(_ reason: String) {
        guard !isClosing else { return }
        core.statistics.protocolErrors += 1
        core.logger.warning("closing connection \(session.map { "of '\($0.clientID)'" } ?? "from \(remoteAddress ?? "?")"): \(reason)")
        close()
    }

    private static func estimatedSize(_ packet: MQTTPacket) -> Int {
        if case .publish(let p) = packet { return 9 + p.topic.utf8.count + p.payload.readableBytes }
        return 8
    }
}
