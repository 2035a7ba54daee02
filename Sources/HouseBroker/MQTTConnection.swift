import Logging
import NIOCore

/// One client's network connection: enforces the packet order of MQTT 3.1.1 and 5 and hands
/// packets to the `BrokerCore` on the same event loop. Any violation closes this connection only
/// (an MQTT 5 client is told why first, in CONNACK or DISCONNECT).
final class MQTTConnection: ChannelInboundHandler {
    typealias InboundIn = MQTTPacket
    typealias OutboundOut = ByteBuffer

    private let core: BrokerCore
    private var context: ChannelHandlerContext?
    /// The session once CONNECT was accepted.
    var session: Session?
    var will: WillMessage?
    /// The version of the CONNECT (3.1.1 until one is read): how every packet is written.
    var version: MQTTProtocolVersion = .v311
    /// QoS 1/2 messages that may be in flight to the client: the broker's limit, within an MQTT 5
    /// client's Receive Maximum (MQTT-3.3.4-9).
    private(set) var sendWindow = 1
    /// The largest packet an MQTT 5 client accepts (its Maximum Packet Size), if it said.
    private(set) var clientMaximumPacketSize: Int?
    private var topicAliases = TopicAliases(inboundMaximum: 0, outboundMaximum: 0)
    private var hasReceivedConnect = false
    private var isClosing = false
    private var needsFlush = false
    private var connectTimeout: Scheduled<Void>?
    /// Set while an MQTT 5 connection that was told why it ends waits for the client to close.
    private var lingerTimer: Scheduled<Void>?
    private(set) var remoteAddress: String?

    /// How long a connection told why it ends (DISCONNECT, a refusing CONNACK) keeps reading
    /// before it is closed anyway (see `flushAndClose`).
    static let lingerTime = TimeAmount.seconds(2)

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
        lingerTimer?.cancel()
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
        case .publish(var publish):
            if publish.topicAlias != nil {
                do {
                    try topicAliases.resolve(&publish, maximumTopicLength: core.configuration.maximumTopicLength)
                } catch {
                    return fail(error)
                }
            }
            core.handlePublish(self, session, publish)
        case .puback, .pubrec, .pubcomp:
            core.handleAck(self, session, packet)
        case .pubrel(let id, _):
            core.handlePubrel(self, session, id)
        case .subscribe(let subscribe):
            core.handleSubscribe(self, session, subscribe)
        case .unsubscribe(let id, let filters):
            core.handleUnsubscribe(self, session, packetID: id, filters: filters)
        case .pingreq:
            send(.pingresp)
        case .disconnect(let disconnect):
            core.handleDisconnect(self, session, disconnect)
        case .auth:
            // Only a client that gave an authentication method in CONNECT may send AUTH (MQTT 5
            // section 4.12), and such a CONNECT is refused.
            protocolViolation("AUTH without an authentication method in CONNECT")
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
            end(.keepAliveTimeout, nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case HouseBrokerError.unacceptableProtocolLevel = error, session == nil, !hasReceivedConnect {
            hasReceivedConnect = true
            core.statistics.connectionsRefused += 1
            core.logger.notice("refusing connection from \(remoteAddress ?? "?"): \(error) (CONNACK 1)")
            send(.connack(ConnackPacket(sessionPresent: false, returnCode: .unacceptableProtocolVersion,
                                        reasonCode: .unsupportedProtocolVersion)))
            flushAndClose()
            return
        }
        if error is HouseBrokerError {
            fail(error)
        } else {
            core.logger.info("connection \(session.map { "of '\($0.clientID)'" } ?? "from \(remoteAddress ?? "?")") failed: \(error)")
            close()
        }
    }

    /// Closes the connection for a broken rule: an MQTT 5 `violation` tells the client its reason
    /// code (in CONNACK when it is the CONNECT that broke it).
    private func fail(_ error: any Error) {
        guard case HouseBrokerError.violation(let code, let why) = error else {
            return protocolViolation("\(error)")
        }
        if session == nil && !hasReceivedConnect {
            // An MQTT 5 CONNECT that could not be accepted as sent (MQTT-3.1.4-1, -2).
            hasReceivedConnect = true
            version = .v5
            core.statistics.protocolErrors += 1
            core.logger.warning("refusing connection from \(remoteAddress ?? "?"): \(why) (CONNACK \(code))")
            var connack = ConnackPacket(sessionPresent: false, returnCode: .unacceptableProtocolVersion, reasonCode: code)
            connack.properties.reasonString = why
            send(.connack(connack))
            flushAndClose()
            return
        }
        protocolViolation(why, code: code)
    }

    // MARK: - Actions used by the core

    /// Binds this connection to its session after CONNACK 0 is decided, with the limits an MQTT 5
    /// client set in its CONNECT properties.
    func accept(session: Session, will: WillMessage?, keepAlive: UInt16, clientProperties: MQTTProperties) {
        self.session = session
        self.will = will
        let configuration = core.configuration
        sendWindow = min(configuration.maximumInflightMessages, Int(clientProperties.receiveMaximum ?? UInt16.max))
        clientMaximumPacketSize = clientProperties.maximumPacketSize.map { Int($0) }
        if version == .v5 {
            topicAliases = TopicAliases(
                inboundMaximum: configuration.topicAliasMaximum,
                outboundMaximum: min(configuration.topicAliasMaximum, Int(clientProperties.topicAliasMaximum ?? 0)))
        }
        if keepAlive > 0, let context {
            // Close after 1.5 times the keepalive without a packet (MQTT-3.1.2-24).
            let handler = IdleStateHandler(readTimeout: .milliseconds(Int64(keepAlive) * 1500))
            try? context.pipeline.syncOperations.addHandler(handler, position: .first)
        }
    }

    func send(_ packet: MQTTPacket) {
        guard let context, !isClosing else { return }
        var buffer = context.channel.allocator.buffer(capacity: Self.estimatedSize(packet))
        packet.encode(into: &buffer, version: version)
        context.write(wrapOutboundOut(buffer), promise: nil)
        if !needsFlush {
            needsFlush = true
            core.dirty.append(self)
        }
    }

    /// Sends a PUBLISH, for an MQTT 5 client with a topic alias when it accepts them, unless it
    /// is larger than the client's Maximum Packet Size: then it is not sent (MQTT-3.1.2-24) and
    /// the answer is false.
    func sendPublish(_ publish: PublishPacket) -> Bool {
        guard version == .v5 else {
            send(.publish(publish))
            return true
        }
        var packet = publish
        let alias = topicAliases.outboundAlias(for: packet.topic)
        if let alias {
            packet.topicAlias = alias.alias
            if alias.isSet { packet.topic = "" }
        }
        if let maximum = clientMaximumPacketSize, MQTTPacket.publish(packet).encodedSize(version: .v5) > maximum {
            return false
        }
        if let alias, !alias.isSet { topicAliases.commit(alias.alias, for: publish.topic) }
        send(.publish(packet))
        return true
    }

    /// Tells an MQTT 5 client why the broker closes its connection (MQTT 5 section 3.14); the
    /// reason string is left out when the packet would pass the client's Maximum Packet Size.
    /// Nothing for MQTT 3.1.1, which has no DISCONNECT from the server.
    func sendDisconnect(_ code: MQTTReasonCode, _ reason: String?) {
        guard version == .v5, session != nil else { return }
        var disconnect = DisconnectPacket(reasonCode: code)
        disconnect.properties.reasonString = reason.map { String($0.prefix(200)) }
        if let maximum = clientMaximumPacketSize, MQTTPacket.disconnect(disconnect).encodedSize(version: .v5) > maximum {
            disconnect.properties.reasonString = nil
        }
        send(.disconnect(disconnect))
    }

    func flush() {
        needsFlush = false
        context?.flush()
    }

    /// Tells an MQTT 5 client why its connection ends (DISCONNECT with `code`) and closes it; a
    /// 3.1.1 client's is just closed.
    func end(_ code: MQTTReasonCode, _ reason: String?) {
        sendDisconnect(code, reason)
        if version == .v5 && session != nil { flushAndClose() } else { close() }
    }

    /// Writes what is pending and closes. An MQTT 5 connection (whose last packet says why it
    /// ends) closes gracefully: it is detached from its session at once (its will published),
    /// shuts down its sending side and reads and discards until the client closes, for at most
    /// `lingerTime`. Closed at once with data still coming in, the kernel would answer the
    /// client's next packet with a reset, which can destroy that last packet before the client
    /// reads it.
    func flushAndClose() {
        guard let context, !isClosing else { return }
        isClosing = true
        needsFlush = false
        guard version == .v5 else {
            context.flush()
            context.close(promise: nil)
            return
        }
        core.detach(self, publishWill: true)
        context.flush()
        let halfClosed = context.eventLoop.makePromise(of: Void.self)
        context.close(mode: .output, promise: halfClosed)
        halfClosed.futureResult.assumeIsolated().whenFailure { [weak self] _ in self?.context?.close(promise: nil) }
        lingerTimer = context.eventLoop.assumeIsolated().scheduleTask(in: Self.lingerTime) { [weak self] in
            self?.context?.close(promise: nil)
        }
    }

    func close() {
        if lingerTimer != nil, let context {
            // Lingering after telling the client why: now it ends.
            lingerTimer?.cancel()
            context.close(promise: nil)
            return
        }
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
    /// and counted; an MQTT 5 client is told `code` and the reason first, a 3.1.1 one nothing.
    func protocolViolation(_ reason: String, code: MQTTReasonCode = .protocolError) {
        guard !isClosing else { return }
        core.statistics.protocolErrors += 1
        core.logger.warning("closing connection \(session.map { "of '\($0.clientID)'" } ?? "from \(remoteAddress ?? "?")"): \(reason)\(version == .v5 && session != nil ? " (DISCONNECT \(code))" : "")")
        end(code, reason)
    }

    private static func estimatedSize(_ packet: MQTTPacket) -> Int {
        if case .publish(let p) = packet {
            return 16 + p.topic.utf8.count + p.payload.readableBytes + (p.properties?.encodedForwarded.readableBytes ?? 0)
                + 6 * p.subscriptionIdentifiers.count
        }
        return 8
    }
}
