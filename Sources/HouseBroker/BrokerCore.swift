import Logging
import MQTTTopics
import NIOCore
import NIOSSL

/// All broker state, confined to the broker's single event loop: sessions, the subscription tree,
/// retained messages, statistics. Every client connection lives on the same loop, so packets are
/// routed without locks or thread hops (the same model as mosquitto's single thread).
package final class BrokerCore {
    let loop: EventLoop
    var configuration: HouseBroker.Configuration
    package var logger: Logger

    package var sessions: [String: Session] = [:]
    /// Offline sessions (see `wentOffline(_:)`), oldest first, by client id and the number of
    /// their going offline; an entry whose session has since come back or ended is stale.
    var offlineOrder = CircularBuffer<(clientID: String, number: UInt64)>()
    /// Sessions offline now (bounded by `maximumOfflineSessions`).
    package internal(set) var offlineSessionCount = 0
    /// The number of the latest session to go offline.
    var offlineNumber: UInt64 = 0
    var tree = SubscriptionTree()
    /// Change it only through `retain(topic:payload:qos:from:)` and `removeAllRetained()`, which keep `retainedBytes`.
    package private(set) var retained: [String: HouseBroker.RetainedMessage] = [:]
    /// Topic and payload bytes of `retained`.
    package private(set) var retainedBytes = 0
    /// Bytes queued or in flight for all sessions (topic, payload, MQTT 5 properties), and of
    /// MQTT 5 wills waiting for their delay.
    package internal(set) var heldBytes = 0
    /// Counted memory of all sessions' subscriptions (see `SubscriptionCost`).
    package private(set) var subscriptionBytes = 0
    /// The last `recordedMessageLimit` messages received.
    package var received = CircularBuffer<HouseBroker.ReceivedMessage>()
    package var statistics = HouseBroker.Statistics()

    /// Every open connection, CONNECTed or not.
    var connections: [ObjectIdentifier: MQTTConnection] = [:]
    /// CONNECTed connections (attached to a session).
    package var connectedCount = 0
    /// Connections with unflushed writes.
    var dirty: [MQTTConnection] = []

    package var serverChannel: Channel?
    /// The TLS context of the listener, when it speaks TLS (made once at start; a restart reuses it).
    package var tlsContext: NIOSSLContext?
    /// The plain loopback listener beside a TLS one (`Configuration.loopbackPort`).
    package var loopbackChannel: Channel?
    var isShutDown = false
    /// Fault hook (HouseBrokerTesting): answer every CONNECT with this code.
    package var refuseCode: HouseBroker.ConnectReturnCode?
    /// Fault hook (HouseBrokerTesting): client ids whose CONNECT is refused (a node cut off).
    package var refusedClientIDs: Set<String> = []
    /// Fault hook (HouseBrokerTesting): read from no client; change it with `setReadingPaused`.
    package private(set) var readingPaused = false
    /// Set while stopping: connections closing then publish no will.
    var suppressWills = false
    var assignedIDCounter = 0

    /// Something waiting for the state to change: checked after every event until it says it is done.
    struct Waiter {
        let id: Int
        /// Whether the wait is over (it completed its own promise then).
        let isDone: (BrokerCore) -> Bool
        let timeout: Scheduled<Void>
    }
    var waiters: [Waiter] = []
    var nextWaiterID = 0

    /// Nodes of the subscription tree, the root included.
    package var subscriptionTreeNodes: Int { tree.nodeCount }

    init(loop: EventLoop, configuration: HouseBroker.Configuration) {
        self.loop = loop
        var configuration = configuration
        // Keep the limits usable: packet ids must stay available, queues cannot be negative.
        configuration.maximumInflightMessages = min(max(configuration.maximumInflightMessages, 1), 65_000)
        configuration.maximumQueuedMessages = max(configuration.maximumQueuedMessages, 0)
        configuration.maximumQueuedBytes = max(configuration.maximumQueuedBytes, 0)
        configuration.maximumTotalQueuedBytes = max(configuration.maximumTotalQueuedBytes, 0)
        configuration.maximumOfflineSessions = max(configuration.maximumOfflineSessions, 0)
        configuration.persistentSessionExpiry = configuration.persistentSessionExpiry.map { max($0, .zero) }
        configuration.maximumPacketSize = min(max(configuration.maximumPacketSize, 2), 268_435_455)
        // Topic limits: at least one level of one byte, at most what MQTT can encode.
        configuration.maximumTopicLength = min(max(configuration.maximumTopicLength, 1), 65_535)
        configuration.maximumTopicLevels = min(max(configuration.maximumTopicLevels, 1), 65_535)
        configuration.maximumSubscriptionsPerClient = max(configuration.maximumSubscriptionsPerClient, 0)
        configuration.maximumSubscriptionBytesPerClient = max(configuration.maximumSubscriptionBytesPerClient, 0)
        configuration.maximumSubscriptionBytes = max(configuration.maximumSubscriptionBytes, 0)
        configuration.maximumRetainedBytes = max(configuration.maximumRetainedBytes, 0)
        configuration.recordedMessageLimit = max(configuration.recordedMessageLimit, 0)
        configuration.maximumPendingConnections = max(configuration.maximumPendingConnections, 1)
        configuration.receiveMaximum = min(max(configuration.receiveMaximum, 1), 65_535)
        configuration.topicAliasMaximum = min(max(configuration.topicAliasMaximum, 0), 65_535)
        configuration.maximumKeepAlive = min(max(configuration.maximumKeepAlive, 1), 65_535)
        self.configuration = configuration
        self.logger = configuration.logger
    }

    // MARK: - Bookkeeping after each event

    /// Flushes connections written to during this event and wakes satisfied waiters.
    func finishEvent() {
        if !dirty.isEmpty {
            let toFlush = dirty
            dirty.removeAll(keepingCapacity: true)
            for connection in toFlush { connection.flush() }
        }
        if !waiters.isEmpty { checkWaiters() }
    }

    func checkWaiters() {
        let current = waiters
        waiters = []
        var remaining: [Waiter] = []
        for waiter in current {
            if waiter.isDone(self) {
                waiter.timeout.cancel()
            } else {
                remaining.append(waiter)
            }
        }
        waiters = remaining + waiters
    }

    // MARK: - CONNECT

    func handleConnect(_ connection: MQTTConnection, _ packet: ConnectPacket) {
        let v5 = packet.version == .v5
        connection.version = packet.version
        if let code = refuseCode {
            return refuse(connection, code, "refusing connections (fault injection)")
        }
        if refusedClientIDs.contains(packet.clientID) {
            return refuse(connection, .serverUnavailable, "client '\(packet.clientID)' is cut off (fault injection)")
        }
        // Not `serverChannel == nil`: a client may connect between bind() and the loop storing
        // the channel (right after start), and must not be refused then.
        if isShutDown { return refuse(connection, .serverUnavailable, "shutting down") }
        if connectedCount >= configuration.maximumConnections {
            return refuse(connection, .serverUnavailable, v5: .serverBusy,
                          "maximum of \(configuration.maximumConnections) connections reached")
        }
        if let method = packet.properties.authenticationMethod {
            // MQTT 5 enhanced authentication (section 4.12) is not supported: MQTT-4.12.0-1 allows
            // refusing it with 0x8C.
            return refuse(connection, .notAuthorized, v5: .badAuthenticationMethod,
                          "enhanced authentication ('\(method.prefix(80))') is not supported")
        }
        var clientID = packet.clientID
        var assignedClientID = false
        if clientID.isEmpty {
            // MQTT 3.1 clients must give one; MQTT 3.1.1 needs clean session 1 for that
            // (MQTT-3.1.3-8); MQTT 5 assigns one in any case.
            guard packet.version != .v31 else {
                return refuse(connection, .identifierRejected, "empty client identifier (MQTT 3.1 requires one)")
            }
            guard packet.cleanStart || v5 else {
                return refuse(connection, .identifierRejected, "empty client identifier with clean session 0")
            }
            assignedIDCounter += 1
            clientID = "housebroker-\(assignedIDCounter)-\(UInt32.random(in: 0...UInt32.max))"
            assignedClientID = true
        }
        if let passwords = configuration.passwordFile {
            if let user = packet.username {
                guard passwords.check(user: user, password: packet.password ?? []) else {
                    return refuse(connection, .badUsernameOrPassword, "bad user name or password for '\(user)'")
                }
            } else if !configuration.allowAnonymous {
                return refuse(connection, .notAuthorized, "anonymous clients are not allowed")
            }
        }

        var existing = sessions[clientID]
        if let old = existing?.connection {
            // Client takeover (MQTT-3.1.4-2): the old connection is closed (an MQTT 5 one told why,
            // MQTT-3.1.4-3); its will is published (after its delay, unless this connection resumes
            // the session).
            logger.info("client '\(clientID)' taken over by a new connection from \(connection.remoteAddress ?? "?")")
            old.end(.sessionTakenOver, "another connection with the client identifier '\(clientID)'")
            detach(old, publishWill: true)
            existing = sessions[clientID]
        }
        let session: Session
        var sessionPresent = false
        let expiry: UInt32 = v5 ? packet.properties.sessionExpiryInterval ?? 0 : (packet.cleanStart ? 0 : .max)
        if let existing, !packet.cleanStart {
            session = existing
            sessionPresent = true
            resume(session)
            session.expiryInterval = expiry
        } else {
            if let existing { endSession(existing) }
            session = Session(clientID: clientID, expiryInterval: expiry)
            sessions[clientID] = session
        }
        // MQTT 5 keepalive cap (Server Keep Alive, MQTT-3.2.2-21): 0 asks for none, which a cap forbids too.
        var keepAlive = packet.keepAlive
        var serverKeepAlive: UInt16?
        let cap = configuration.maximumKeepAlive
        if v5 && cap < 65_535 && (keepAlive == 0 || Int(keepAlive) > cap) {
            keepAlive = UInt16(cap)
            serverKeepAlive = keepAlive
        }
        session.username = packet.username
        session.keepAlive = Int(keepAlive)
        session.protocolVersion = packet.version
        session.connection = connection
        connectedCount += 1
        statistics.connectionsAccepted += 1
        connection.accept(session: session, will: packet.will, keepAlive: keepAlive, clientProperties: packet.properties)
        logger.info("client '\(clientID)' connected from \(connection.remoteAddress ?? "?") (\(packet.version), clean \(v5 ? "start" : "session") \(packet.cleanStart ? 1 : 0)\(v5 ? ", session expiry \(expiry)s" : ""), keepalive \(keepAlive)s\(packet.username.map { ", user \($0)" } ?? ""))")
        var connack = ConnackPacket(sessionPresent: sessionPresent, returnCode: .accepted, reasonCode: .success)
        if v5 {
            connack.properties = connackProperties(assignedClientID: assignedClientID ? clientID : nil,
                                                   serverKeepAlive: serverKeepAlive)
        }
        connection.send(.connack(connack))

        // Redeliver unacknowledged messages in their original order (MQTT-4.4.0-1, MQTT-4.6.0-1).
        var tooLarge: [UInt16] = []
        for entry in session.inflight {
            switch entry.stage {
            case .awaitingPuback, .awaitingPubrec:
                if !sendPublish(entry.message, packetID: entry.packetID, dup: true, on: connection) {
                    tooLarge.append(entry.packetID)
                }
            case .awaitingPubcomp:
                connection.send(.pubrel(entry.packetID))
            }
        }
        for id in tooLarge {
            if let index = session.inflightIndex(of: id) { heldBytes -= session.removeInflight(at: index) }
        }
        drain(session)
    }

    /// What an MQTT 5 CONNACK tells the client about the broker (MQTT 5 section 3.2.2.3): its
    /// limits and that retained messages, wildcards, subscription identifiers and shared
    /// subscriptions are available (said even where absence would mean the same).
    private func connackProperties(assignedClientID: String?, serverKeepAlive: UInt16?) -> MQTTProperties {
        var properties = MQTTProperties()
        properties.assignedClientIdentifier = assignedClientID
        properties.serverKeepAlive = serverKeepAlive
        if configuration.receiveMaximum < 65_535 { properties.receiveMaximum = UInt16(configuration.receiveMaximum) }
        // The configured limit is on the remaining length; MQTT 5 counts the whole packet.
        let size = configuration.maximumPacketSize
        properties.maximumPacketSize = UInt32(1 + ByteBuffer.variableByteIntegerLength(size) + size)
        if configuration.topicAliasMaximum > 0 { properties.topicAliasMaximum = UInt16(configuration.topicAliasMaximum) }
        properties.retainAvailable = true
        properties.wildcardSubscriptionAvailable = true
        properties.subscriptionIdentifiersAvailable = true
        properties.sharedSubscriptionAvailable = true
        return properties
    }

    /// Answers CONNECT with a refusal and closes: `code` for MQTT 3.1.1, `v5` (or the MQTT 5 code
    /// of `code`) for MQTT 5, with `reason` as its reason string.
    private func refuse(_ connection: MQTTConnection, _ code: HouseBroker.ConnectReturnCode, v5: MQTTReasonCode? = nil,
                        _ reason: String) {
        statistics.connectionsRefused += 1
        let reasonCode = v5 ?? MQTTReasonCode(code)
        let shown = connection.version == .v5 ? "CONNACK \(reasonCode)" : "CONNACK \(code.rawValue)"
        logger.notice("refusing connection from \(connection.remoteAddress ?? "?"): \(reason) (\(shown))")
        var connack = ConnackPacket(sessionPresent: false, returnCode: code, reasonCode: reasonCode)
        connack.properties.reasonString = reason
        connection.send(.connack(connack))
        connection.flushAndClose()
    }

    // MARK: - Connection end

    /// Detaches a CONNECTed connection from its session; publishes its will unless told not to
    /// (an MQTT 5 will with a delay waits in the session for it, or for the session's end).
    func detach(_ connection: MQTTConnection, publishWill: Bool) {
        guard let session = connection.session else { return }
        connection.session = nil
        connectedCount -= 1
        var will = publishWill && !suppressWills ? connection.will : nil
        connection.will = nil
        if session.connection === connection {
            session.connection = nil
            if session.expiryInterval == 0 {
                // The session ends with the connection, and a delayed will with it (MQTT-3.1.3-9).
                discard(session)
            } else {
                // QoS 0 messages are not kept for offline clients.
                heldBytes -= session.removeQueuedQoS0()
                // A will waits in the session for its delay, counted with the queued messages;
                // when the broker's queues are full it is published at once instead.
                if let delayed = will, delayed.delayInterval > 0, heldBytes + delayed.size <= configuration.maximumTotalQueuedBytes {
                    delayWill(delayed, of: session)
                    will = nil
                }
                scheduleExpiry(of: session)
                wentOffline(session)
            }
        }
        logger.info("client '\(session.clientID)' disconnected")
        if let will { self.publishWill(will, of: session) }
    }

    func connectionClosed(_ connection: MQTTConnection) {
        connections[ObjectIdentifier(connection)] = nil
        detach(connection, publishWill: true)
        finishEvent()
    }

    /// Removes a session, its subscriptions and the messages it held.
    func discard(_ session: Session) {
        let (filters, bytes) = session.unsubscribeAll()
        for filter in filters { tree.remove(filter: filter, clientID: session.clientID) }
        subscriptionBytes -= bytes
        heldBytes -= session.heldBytes
        session.expiryTimer?.cancel()
        session.expiryTimer = nil
        cameBack(session)
        if sessions[session.clientID] === session { sessions[session.clientID] = nil }
    }

    /// Forgets every session (a broker restarted without persistence); call with no connection open.
    package func removeAllSessions() {
        for session in sessions.values {
            session.expiryTimer?.cancel()
            session.willTimer?.cancel()
        }
        sessions.removeAll()
        offlineOrder.removeAll()
        offlineSessionCount = 0
        tree = SubscriptionTree()
        subscriptionBytes = 0
        heldBytes = 0
    }

    /// Forgets every retained message (a broker restarted without persistence).
    package func removeAllRetained() {
        retained.removeAll()
        retainedBytes = 0
    }

    // MARK: - PUBLISH from a client

    func handlePublish(_ connection: MQTTConnection, _ session: Session, _ packet: PublishPacket) {
        if packet.qos == .exactlyOnce, connection.version == .v5, session.incomingQoS2.count >= configuration.receiveMaximum,
           !session.incomingQoS2.contains(packet.packetID) {
            return connection.protocolViolation(
                "more than \(configuration.receiveMaximum) QoS 2 messages awaiting PUBREL, its receive maximum",
                code: .receiveMaximumExceeded)
        }
        var outcome = MQTTReasonCode.success
        let alreadyReceived = packet.qos == .exactlyOnce && session.incomingQoS2.contains(packet.packetID)
        if !alreadyReceived {
            if let properties = packet.properties, properties.forwarded.payloadFormat == .utf8,
               String(validating: packet.payload.readableBytesView, as: UTF8.self) == nil {
                // MQTT 5 section 3.3.2.3.2: the broker may check, and answers 0x99.
                logger.notice("'\(session.clientID)' published to \(packet.topic) a payload said to be UTF-8 that is not; dropped")
                outcome = .payloadFormatInvalid
            } else {
                outcome = publish(topic: packet.topic, payload: packet.payload, qos: packet.qos, retain: packet.retain,
                                  properties: packet.properties, from: session.clientID, username: session.username,
                                  isWill: false)
            }
        }
        switch packet.qos {
        case .atMostOnce:
            break
        case .atLeastOnce:
            connection.send(.puback(packet.packetID, outcome))
        case .exactlyOnce:
            // Method B of MQTT-4.3.3-2: deliver on PUBLISH, remember the id until PUBREL. A PUBREC
            // with a failure code ends the exchange (MQTT 5 section 4.3.3), so nothing is kept.
            if !outcome.isFailure { session.incomingQoS2.insert(packet.packetID) }
            connection.send(.pubrec(packet.packetID, outcome))
        }
    }

    /// PUBREL is answered with PUBCOMP even for an id not (or no longer) known: MQTT-4.3.3-2 asks
    /// for one for every PUBREL, the sender retries until it gets it, and with method B a PUBREL
    /// resent after a reconnect names an id already released. MQTT 3.1.1 has no "not found"
    /// answer; an MQTT 5 client is told 0x92 (packet identifier not found).
    func handlePubrel(_ connection: MQTTConnection, _ session: Session, _ id: UInt16) {
        let known = session.incomingQoS2.remove(id) != nil
        connection.send(.pubcomp(id, known ? .success : .packetIdentifierNotFound))
    }

    /// Records, authorises, retains and routes one application message; returns what an MQTT 5
    /// PUBACK or PUBREC says about it (success, no matching subscribers, not authorized, topic
    /// name invalid).
    @discardableResult
    func publish(topic: String, payload: ByteBuffer, qos: HouseBroker.QoS, retain: Bool, properties: MessageProperties?,
                 from clientID: String, username: String?, isWill: Bool) -> MQTTReasonCode {
        statistics.messagesReceived += 1
        if let why = MQTTTopic.limitExceeded(topic, maximumLevels: configuration.maximumTopicLevels,
                                             maximumLength: configuration.maximumTopicLength) {
            statistics.publishesRefused += 1
            logger.notice("'\(clientID)' published\(isWill ? " its will" : "") to a topic of \(why); dropped")
            return .topicNameInvalid
        }
        if configuration.recordedMessageLimit > 0 {
            if received.count >= configuration.recordedMessageLimit { received.removeFirst() }
            received.append(HouseBroker.ReceivedMessage(clientID: clientID, topic: topic, buffer: payload,
                                                        qos: qos, retain: retain, isWill: isWill, messageProperties: properties))
        }
        if let acl = configuration.accessControl, !acl.mayPublish(topic: topic, user: username, clientID: clientID) {
            statistics.publishesDenied += 1
            logger.notice("ACL: '\(clientID)' may not publish to \(topic); dropped")
            return .notAuthorized
        }
        logger.debug("publish from '\(clientID)' to \(topic) (\(qos), \(payload.readableBytes) bytes\(retain ? ", retained" : ""))")
        if retain { self.retain(topic: topic, payload: payload, qos: qos, properties: properties, from: clientID) }
        let denials = readDenials
        let matches = tree.subscribers(matching: topic, publisher: clientID)
        var delivered = false
        for (subscriber, delivery) in matches.clients {
            guard let session = sessions[subscriber], Self.mayDeliver(topic, to: session, denials) else { continue }
            delivered = true
            deliver(OutgoingMessage(topic: topic, payload: payload, qos: min(qos, delivery.qos),
                                    retain: retain && delivery.retainAsPublished, properties: properties,
                                    subscriptionIdentifiers: delivery.identifiers), to: session)
        }
        // Each shared subscription group gets the message once, at the next member's turn
        // (MQTT 5 section 4.8.2), preferring connected members.
        for group in matches.shared {
            let member = tree.nextSharedMember(
                group,
                eligible: { [sessions] in sessions[$0].map { Self.mayDeliver(topic, to: $0, denials) } ?? false },
                preferred: { [sessions] in sessions[$0]?.connection != nil })
            guard let (subscriber, subscription) = member, let session = sessions[subscriber] else { continue }
            delivered = true
            deliver(OutgoingMessage(topic: topic, payload: payload, qos: min(qos, subscription.qos),
                                    retain: retain && subscription.retainAsPublished, properties: properties,
                                    subscriptionIdentifiers: subscription.identifier.map { [$0] } ?? []), to: session)
        }
        return delivered ? .success : .noMatchingSubscribers
    }

    /// The ACL when it has deny rules, which delivery must check; nil otherwise (no check needed).
    private var readDenials: AccessControlList? {
        configuration.accessControl.flatMap { $0.hasDenyRules ? $0 : nil }
    }

    /// Whether a message on `topic` may reach `session` through a granted subscription: a deny
    /// rule holds even under a wider subscription ("everything but X").
    private static func mayDeliver(_ topic: String, to session: Session, _ denials: AccessControlList?) -> Bool {
        denials?.mayRead(topic: topic, user: session.username, clientID: session.clientID) ?? true
    }

    /// Stores (or with an empty payload clears) the retained message of `topic`, within
    /// `maximumRetainedBytes`.
    private func retain(topic: String, payload: ByteBuffer, qos: HouseBroker.QoS, properties: MessageProperties?,
                        from clientID: String) {
        if payload.readableBytes == 0 {
            removeRetained(topic)
            return
        }
        let oldSize = retained[topic]?.size ?? 0
        let size = topic.utf8.count + payload.readableBytes + (properties?.encodedForwarded.readableBytes ?? 0)
        if retainedBytes - oldSize + size > configuration.maximumRetainedBytes {
            statistics.retainedRefused += 1
            logger.warning("'\(clientID)': retained message on \(topic) (\(size) bytes) not retained: retained messages would pass the limit of \(configuration.maximumRetainedBytes) bytes")
            return
        }
        retained[topic] = HouseBroker.RetainedMessage(topic: topic, buffer: payload, qos: qos, messageProperties: properties)
        retainedBytes += size - oldSize
    }

    private func removeRetained(_ topic: String) {
        guard let old = retained.removeValue(forKey: topic) else { return }
        retainedBytes -= old.size
    }

    // MARK: - Delivery to a client

    /// Sends now if possible, else queues (bounded; drops are counted).
    func deliver(_ message: OutgoingMessage, to session: Session) {
        if let connection = session.connection, session.queue.isEmpty, connection.isWritable {
            if message.qos == .atMostOnce {
                sendPublish(message, packetID: 0, dup: false, on: connection)
                return
            }
            if session.inflight.count < connection.sendWindow {
                sendInflight(message, session: session, on: connection)
                return
            }
        }
        if session.connection == nil && message.qos == .atMostOnce { return }
        if !queueHasRoom(for: message, in: session) {
            // Messages past their expiry interval make room first (MQTT-3.3.2-5).
            let (expired, bytes) = session.removeExpired(at: .now())
            heldBytes -= bytes
            statistics.messagesExpired += expired
        }
        if !queueHasRoom(for: message, in: session) {
            session.droppedCount += 1
            statistics.messagesDropped += 1
            if session.droppedCount == 1 || session.droppedCount % 1000 == 0 {
                let overTotal = heldBytes + message.size > configuration.maximumTotalQueuedBytes
                let which = overTotal && session.queuedReliable < configuration.maximumQueuedMessages
                    && session.queuedBytes + message.size <= configuration.maximumQueuedBytes
                    ? "the broker's queues are full (\(heldBytes) bytes for all clients)"
                    : "queue of '\(session.clientID)' is full (\(session.queuedReliable) QoS 1/2 messages, \(session.queuedBytes) bytes)"
                logger.warning("\(which); \(session.droppedCount) messages for '\(session.clientID)' dropped so far")
            }
            return
        }
        session.enqueue(message)
        heldBytes += message.size
    }

    /// Like mosquitto: the message limit counts QoS 1/2; the byte limits bound everything.
    private func queueHasRoom(for message: OutgoingMessage, in session: Session) -> Bool {
        let overCount = message.qos != .atMostOnce && session.queuedReliable >= configuration.maximumQueuedMessages
        let overBytes = session.queuedBytes + message.size > configuration.maximumQueuedBytes
        let overTotal = heldBytes + message.size > configuration.maximumTotalQueuedBytes
        return !(overCount || overBytes || overTotal)
    }

    private func sendInflight(_ message: OutgoingMessage, session: Session, on connection: MQTTConnection) {
        let id = session.nextPacketID()
        // A message too large for the client is dropped as if delivered (MQTT-3.1.2-25).
        guard sendPublish(message, packetID: id, dup: false, on: connection) else { return }
        session.addInflight(InflightMessage(
            packetID: id, message: message,
            stage: message.qos == .atLeastOnce ? .awaitingPuback : .awaitingPubrec))
        heldBytes += message.size
    }

    /// Writes one PUBLISH (for an MQTT 5 client with its properties, subscription identifiers and
    /// the expiry left); false when it was not sent because it is larger than the client accepts.
    @discardableResult
    func sendPublish(_ message: OutgoingMessage, packetID: UInt16, dup: Bool, on connection: MQTTConnection) -> Bool {
        var packet = PublishPacket(topic: message.topic, payload: message.payload, qos: message.qos,
                                   retain: message.retain, dup: dup, packetID: packetID)
        if connection.version == .v5 {
            packet.properties = message.properties
            packet.subscriptionIdentifiers = message.subscriptionIdentifiers
            if let properties = message.properties, properties.expiresAt != nil {
                packet.messageExpiryInterval = properties.remainingExpiry(at: .now())
            }
        }
        guard connection.sendPublish(packet) else {
            statistics.messagesTooLarge += 1
            logger.notice("a message on \(message.topic) is larger than the \(connection.clientMaximumPacketSize ?? 0) bytes '\(connection.session?.clientID ?? "?")' accepts; not sent")
            return false
        }
        statistics.messagesSent += 1
        return true
    }

    /// Sends queued messages while the socket takes them and the in-flight window allows; drops
    /// those whose expiry interval has passed (MQTT-3.3.2-5).
    func drain(_ session: Session) {
        guard let connection = session.connection else { return }
        var now: NIODeadline?
        while let next = session.queue.first, connection.isWritable {
            if next.qos != .atMostOnce && session.inflight.count >= connection.sendWindow { break }
            _ = session.dequeue()
            heldBytes -= next.size
            if let properties = next.properties, properties.expiresAt != nil {
                let current = now ?? .now()
                now = current
                if properties.isExpired(at: current) {
                    statistics.messagesExpired += 1
                    continue
                }
            }
            if next.qos == .atMostOnce {
                sendPublish(next, packetID: 0, dup: false, on: connection)
            } else {
                sendInflight(next, session: session, on: connection)
            }
        }
    }

    /// PUBACK, PUBREC or PUBCOMP from the client for a message the broker sent.
    ///
    /// An acknowledgement of the wrong kind for the message's QoS flow (PUBREC or PUBCOMP for a
    /// QoS 1 message, PUBACK for a QoS 2 one, PUBCOMP before PUBREC) is a protocol violation: the
    /// connection is closed (MQTT-4.8.0-1) and nothing is answered. One for an id not in flight is
    /// ignored (a late duplicate after a resend) and gets no answer either. An MQTT 5 PUBREC with
    /// a failure code ends the exchange: no PUBREL follows (MQTT 5 section 4.3.3).
    func handleAck(_ connection: MQTTConnection, _ session: Session, _ packet: MQTTPacket) {
        let id: UInt16
        let expected: InflightMessage.Stage
        var code = MQTTReasonCode.success
        switch packet {
        case .puback(let packetID, _): (id, expected) = (packetID, .awaitingPuback)
        case .pubrec(let packetID, let reason): (id, expected, code) = (packetID, .awaitingPubrec, reason)
        case .pubcomp(let packetID, _): (id, expected) = (packetID, .awaitingPubcomp)
        default: return
        }
        guard let index = session.inflightIndex(of: id) else {
            logger.debug("'\(session.clientID)' sent \(packet.name) for packet id \(id), which is not in flight; ignored")
            return
        }
        let stage = session.inflight[index].stage
        if stage == expected || (expected == .awaitingPubrec && stage == .awaitingPubcomp) {
            switch expected {
            case .awaitingPuback, .awaitingPubcomp:
                heldBytes -= session.removeInflight(at: index)
                drain(session)
            case .awaitingPubrec where code.isFailure:
                logger.info("'\(session.clientID)' refused the message with packet id \(id): PUBREC \(code)")
                heldBytes -= session.removeInflight(at: index)
                drain(session)
            case .awaitingPubrec:
                // A repeated PUBREC (the client missed our PUBREL) is answered again.
                session.setInflightStage(at: index, .awaitingPubcomp)
                connection.send(.pubrel(id))
            }
            return
        }
        let flow = session.inflight[index].message.qos == .atLeastOnce ? "QoS 1 message" : "QoS 2 message awaiting \(stage == .awaitingPubrec ? "PUBREC" : "PUBCOMP")"
        connection.protocolViolation("\(packet.name) for packet id \(id), a \(flow) (MQTT-4.3)")
    }

    // MARK: - SUBSCRIBE / UNSUBSCRIBE

    /// Answers each filter with the QoS granted or why not: an invalid filter (0x8F), a limit
    /// (0x97 quota exceeded), the ACL (0x87 not authorized); a 3.1.1 client sees 0x80 for each.
    /// Retained messages follow as the subscription's retain handling says, none for a shared one.
    func handleSubscribe(_ connection: MQTTConnection, _ session: Session, _ packet: SubscribePacket) {
        var codes: [MQTTReasonCode] = []
        var retainedToSend: [OutgoingMessage] = []
        let denials = readDenials
        let now = NIODeadline.now()
        for (filter, subscription) in packet.subscriptions {
            // What the subscription matches: a shared one's filter after `$share/NAME/`.
            let matchFilter: String
            var isShared = false
            if MQTTSharedSubscription.isShared(filter) {
                do {
                    matchFilter = try MQTTSharedSubscription(parsing: filter).filter
                    isShared = true
                } catch {
                    logger.notice("'\(session.clientID)' sent the invalid shared subscription '\(filter.prefix(80))': \(error); refused")
                    codes.append(.topicFilterInvalid)
                    continue
                }
            } else {
                guard MQTTTopic.isValidFilter(filter) else {
                    logger.notice("'\(session.clientID)' sent the invalid topic filter '\(filter.prefix(80))'; refused")
                    codes.append(.topicFilterInvalid)
                    continue
                }
                matchFilter = filter
            }
            if let why = subscriptionLimitExceeded(filter, session: session) {
                statistics.subscriptionsRefused += 1
                logger.notice("'\(session.clientID)' may not subscribe to '\(filter.prefix(80))\(filter.utf8.count > 80 ? "…" : "")': \(why); refused")
                codes.append(.quotaExceeded)
                continue
            }
            if let acl = configuration.accessControl,
               !acl.maySubscribe(filter: matchFilter, user: session.username, clientID: session.clientID) {
                logger.notice("ACL: '\(session.clientID)' may not subscribe to \(filter); refused")
                codes.append(.notAuthorized)
                continue
            }
            let (bytes, existed) = session.subscribe(filter, subscription)
            subscriptionBytes += bytes
            tree.insert(filter: filter, clientID: session.clientID, subscription: subscription)
            codes.append(.granted(subscription.qos))
            logger.info("'\(session.clientID)' subscribed to \(filter) at \(subscription.qos)")
            let sendRetained = switch subscription.retainHandling {
            case .onSubscribe: true
            case .onNewSubscription: !existed
            case .never: false
            }
            guard sendRetained, !isShared else { continue }
            var expired: [String] = []
            for message in retained.values where MQTTTopic.matches(topic: message.topic, filter: matchFilter)
                && Self.mayDeliver(message.topic, to: session, denials) {
                if message.messageProperties?.isExpired(at: now) == true {
                    expired.append(message.topic)
                    continue
                }
                retainedToSend.append(OutgoingMessage(
                    topic: message.topic, payload: message.buffer, qos: min(message.qos, subscription.qos), retain: true,
                    properties: message.messageProperties,
                    subscriptionIdentifiers: subscription.identifier.map { [$0] } ?? []))
            }
            for topic in expired {
                removeRetained(topic)
                statistics.messagesExpired += 1
            }
        }
        connection.send(.suback(packetID: packet.packetID, codes: codes))
        for message in retainedToSend { deliver(message, to: session) }
    }

    func handleUnsubscribe(_ connection: MQTTConnection, _ session: Session, packetID: UInt16, filters: [String]) {
        var codes: [MQTTReasonCode] = []
        for filter in filters {
            guard let freed = session.unsubscribe(filter) else {
                let valid = MQTTSharedSubscription.isShared(filter)
                    ? (try? MQTTSharedSubscription(parsing: filter)) != nil : MQTTTopic.isValidFilter(filter)
                codes.append(valid ? .noSubscriptionExisted : .topicFilterInvalid)
                continue
            }
            subscriptionBytes -= freed
            tree.remove(filter: filter, clientID: session.clientID)
            codes.append(.success)
            logger.info("'\(session.clientID)' unsubscribed from \(filter)")
        }
        connection.send(.unsuback(packetID: packetID, codes: codes))
    }

    /// Why `session` may not add a subscription to the valid filter `filter`, or nil when it may.
    private func subscriptionLimitExceeded(_ filter: String, session: Session) -> String? {
        if let why = MQTTTopic.limitExceeded(filter, maximumLevels: configuration.maximumTopicLevels,
                                             maximumLength: configuration.maximumTopicLength) {
            return "the filter has \(why)"
        }
        // Replacing an existing subscription (new options) costs nothing more.
        if session.subscriptions[filter] != nil { return nil }
        if session.subscriptions.count >= configuration.maximumSubscriptionsPerClient {
            return "it holds \(session.subscriptions.count) subscriptions, the limit per client"
        }
        let cost = SubscriptionCost.of(filter: filter)
        if session.subscriptionBytes + cost > configuration.maximumSubscriptionBytesPerClient {
            return "its subscriptions would pass the limit of \(configuration.maximumSubscriptionBytesPerClient) bytes per client"
        }
        if subscriptionBytes + cost > configuration.maximumSubscriptionBytes {
            return "all subscriptions together would pass the limit of \(configuration.maximumSubscriptionBytes) bytes"
        }
        return nil
    }

    // MARK: - Lifecycle, and the hooks of HouseBrokerTesting's fault injection

    /// Closes every connection (wills are published unless `suppressWills`); MQTT 5 clients are
    /// told `reason` first when given (a stopping broker says 0x8B, server shutting down).
    package func closeAllConnections(reason: MQTTReasonCode? = nil) {
        for connection in connections.values {
            if let reason { connection.end(reason, nil) } else { connection.close() }
        }
    }

    /// Closes the connections of `clientID` as a network failure would (its will is published).
    package func closeConnections(of clientID: String) {
        for connection in connections.values where connection.session?.clientID == clientID { connection.close() }
    }

    /// Stops or resumes reading from every client, current and new.
    package func setReadingPaused(_ paused: Bool) {
        readingPaused = paused
        for connection in connections.values { connection.setAutoRead(!paused) }
    }
}
