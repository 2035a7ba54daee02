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
    var tree = SubscriptionTree()
    /// Change it only through `retain(topic:payload:qos:from:)` and `removeAllRetained()`, which keep `retainedBytes`.
    package private(set) var retained: [String: HouseBroker.RetainedMessage] = [:]
    /// Topic and payload bytes of `retained`.
    package private(set) var retainedBytes = 0
    /// Topic and payload bytes queued or in flight for all sessions.
    package private(set) var heldBytes = 0
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
    private var assignedIDCounter = 0

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
            return refuse(connection, .serverUnavailable, "maximum of \(configuration.maximumConnections) connections reached")
        }
        var clientID = packet.clientID
        if clientID.isEmpty {
            guard packet.cleanSession else {
                return refuse(connection, .identifierRejected, "empty client identifier with clean session 0")
            }
            assignedIDCounter += 1
            clientID = "housebroker-\(assignedIDCounter)-\(UInt32.random(in: 0...UInt32.max))"
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
            // Client takeover (MQTT-3.1.4-2): the old connection is closed; its will is published.
            logger.info("client '\(clientID)' taken over by a new connection from \(connection.remoteAddress ?? "?")")
            detach(old, publishWill: true)
            old.close()
            existing = sessions[clientID]
        }
        let session: Session
        var sessionPresent = false
        if let existing, !packet.cleanSession, !existing.cleanSession {
            session = existing
            sessionPresent = true
        } else {
            if let existing { discard(existing) }
            session = Session(clientID: clientID, cleanSession: packet.cleanSession)
            sessions[clientID] = session
        }
        session.username = packet.username
        session.keepAlive = Int(packet.keepAlive)
        session.connection = connection
        connectedCount += 1
        statistics.connectionsAccepted += 1
        connection.accept(session: session, will: packet.will, keepAlive: packet.keepAlive)
        logger.info("client '\(clientID)' connected from \(connection.remoteAddress ?? "?") (clean session \(packet.cleanSession ? 1 : 0), keepalive \(packet.keepAlive)s\(packet.username.map { ", user \($0)" } ?? ""))")
        connection.send(.connack(sessionPresent: sessionPresent, returnCode: .accepted))

        // Redeliver unacknowledged messages in their original order (MQTT-4.4.0-1, MQTT-4.6.0-1).
        for entry in session.inflight {
            switch entry.stage {
            case .awaitingPuback, .awaitingPubrec:
                sendPublish(entry.message, packetID: entry.packetID, dup: true, on: connection)
            case .awaitingPubcomp:
                connection.send(.pubrel(entry.packetID))
            }
        }
        drain(session)
    }

    private func refuse(_ connection: MQTTConnection, _ code: HouseBroker.ConnectReturnCode, _ reason: String) {
        statistics.connectionsRefused += 1
        logger.notice("refusing connection from \(connection.remoteAddress ?? "?"): \(reason) (CONNACK \(code.rawValue))")
        connection.send(.connack(sessionPresent: false, returnCode: code))
        connection.flushAndClose()
    }

    // MARK: - Connection end

    /// Detaches a CONNECTed connection from its session; publishes its will unless told not to.
    func detach(_ connection: MQTTConnection, publishWill: Bool) {
        guard let session = connection.session else { return }
        connection.session = nil
        connectedCount -= 1
        let will = connection.will
        connection.will = nil
        if session.connection === connection {
            session.connection = nil
            if session.cleanSession {
                discard(session)
            } else {
                // QoS 0 messages are not kept for offline clients.
                heldBytes -= session.removeQueuedQoS0()
            }
        }
        logger.info("client '\(session.clientID)' disconnected")
        if publishWill, !suppressWills, let will {
            logger.info("publishing will of '\(session.clientID)' to \(will.topic)")
            publish(topic: will.topic, payload: will.payload, qos: will.qos, retain: will.retain,
                    from: session.clientID, username: session.username, isWill: true)
        }
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
        if sessions[session.clientID] === session { sessions[session.clientID] = nil }
    }

    /// Forgets every session (a broker restarted without persistence); call with no connection open.
    package func removeAllSessions() {
        sessions.removeAll()
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
        switch packet.qos {
        case .atMostOnce:
            publish(topic: packet.topic, payload: packet.payload, qos: packet.qos, retain: packet.retain,
                    from: session.clientID, username: session.username, isWill: false)
        case .atLeastOnce:
            publish(topic: packet.topic, payload: packet.payload, qos: packet.qos, retain: packet.retain,
                    from: session.clientID, username: session.username, isWill: false)
            connection.send(.puback(packet.packetID))
        case .exactlyOnce:
            // Method B of MQTT-4.3.3-2: deliver on PUBLISH, remember the id until PUBREL.
            if session.incomingQoS2.insert(packet.packetID).inserted {
                publish(topic: packet.topic, payload: packet.payload, qos: packet.qos, retain: packet.retain,
                        from: session.clientID, username: session.username, isWill: false)
            }
            connection.send(.pubrec(packet.packetID))
        }
    }

    /// PUBREL is answered with PUBCOMP even for an id not (or no longer) known: MQTT-4.3.3-2 asks
    /// for one for every PUBREL, the sender retries until it gets it, and with method B a PUBREL
    /// resent after a reconnect names an id already released (3.1.1 has no "not found" answer;
    /// MQTT 5's is reason 0x92).
    func handlePubrel(_ connection: MQTTConnection, _ session: Session, _ id: UInt16) {
        session.incomingQoS2.remove(id)
        connection.send(.pubcomp(id))
    }

    /// Records, authorises, retains and routes one application message.
    func publish(topic: String, payload: ByteBuffer, qos: HouseBroker.QoS, retain: Bool,
                 from clientID: String, username: String?, isWill: Bool) {
        statistics.messagesReceived += 1
        if let why = MQTTTopic.limitExceeded(topic, maximumLevels: configuration.maximumTopicLevels,
                                             maximumLength: configuration.maximumTopicLength) {
            statistics.publishesRefused += 1
            logger.notice("'\(clientID)' published\(isWill ? " its will" : "") to a topic of \(why); dropped")
            return
        }
        if configuration.recordedMessageLimit > 0 {
            if received.count >= configuration.recordedMessageLimit { received.removeFirst() }
            received.append(HouseBroker.ReceivedMessage(clientID: clientID, topic: topic, buffer: payload,
                                                        qos: qos, retain: retain, isWill: isWill))
        }
        if let acl = configuration.accessControl, !acl.mayPublish(topic: topic, user: username, clientID: clientID) {
            statistics.publishesDenied += 1
            logger.notice("ACL: '\(clientID)' may not publish to \(topic); dropped")
            return
        }
        logger.debug("publish from '\(clientID)' to \(topic) (\(qos), \(payload.readableBytes) bytes\(retain ? ", retained" : ""))")
        if retain { self.retain(topic: topic, payload: payload, qos: qos, from: clientID) }
        let denials = readDenials
        for (subscriber, subscriptionQoS) in tree.subscribers(matching: topic) {
            guard let session = sessions[subscriber], Self.mayDeliver(topic, to: session, denials) else { continue }
            deliver(OutgoingMessage(topic: topic, payload: payload, qos: min(qos, subscriptionQoS), retain: false), to: session)
        }
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
    private func retain(topic: String, payload: ByteBuffer, qos: HouseBroker.QoS, from clientID: String) {
        let oldSize = retained[topic].map { topic.utf8.count + $0.buffer.readableBytes } ?? 0
        if payload.readableBytes == 0 {
            retained[topic] = nil
            retainedBytes -= oldSize
            return
        }
        let size = topic.utf8.count + payload.readableBytes
        if retainedBytes - oldSize + size > configuration.maximumRetainedBytes {
            statistics.retainedRefused += 1
            logger.warning("'\(clientID)': retained message on \(topic) (\(size) bytes) not retained: retained messages would pass the limit of \(configuration.maximumRetainedBytes) bytes")
            return
        }
        retained[topic] = HouseBroker.RetainedMessage(topic: topic, buffer: payload, qos: qos)
        retainedBytes += size - oldSize
    }

    // MARK: - Delivery to a client

    /// Sends now if possible, else queues (bounded; drops are counted).
    func deliver(_ message: OutgoingMessage, to session: Session) {
        if let connection = session.connection, session.queue.isEmpty, connection.isWritable {
            if message.qos == .atMostOnce {
                sendPublish(message, packetID: 0, dup: false, on: connection)
                return
            }
            if session.inflight.count < configuration.maximumInflightMessages {
                sendInflight(message, session: session, on: connection)
                return
            }
        }
        if session.connection == nil && message.qos == .atMostOnce { return }
        // Like mosquitto: the message limit counts QoS 1/2; the byte limit bounds everything.
        let overCount = message.qos != .atMostOnce && session.queuedReliable >= configuration.maximumQueuedMessages
        let overBytes = session.queuedBytes + message.size > configuration.maximumQueuedBytes
        let overTotal = heldBytes + message.size > configuration.maximumTotalQueuedBytes
        if overCount || overBytes || overTotal {
            session.droppedCount += 1
            statistics.messagesDropped += 1
            if session.droppedCount == 1 || session.droppedCount % 1000 == 0 {
                let which = overTotal && !overCount && !overBytes
                    ? "the broker's queues are full (\(heldBytes) bytes for all clients)"
                    : "queue of '\(session.clientID)' is full (\(session.queuedReliable) QoS 1/2 messages, \(session.queuedBytes) bytes)"
                logger.warning("\(which); \(session.droppedCount) messages for '\(session.clientID)' dropped so far")
            }
            return
        }
        session.enqueue(message)
        heldBytes += message.size
    }

    private func sendInflight(_ message: OutgoingMessage, session: Session, on connection: MQTTConnection) {
        let id = session.nextPacketID()
        session.addInflight(InflightMessage(
            packetID: id, message: message,
            stage: message.qos == .atLeastOnce ? .awaitingPuback : .awaitingPubrec))
        heldBytes += message.size
        sendPublish(message, packetID: id, dup: false, on: connection)
    }

    func sendPublish(_ message: OutgoingMessage, packetID: UInt16, dup: Bool, on connection: MQTTConnection) {
        statistics.messagesSent += 1
        connection.send(.publish(PublishPacket(topic: message.topic, payload: message.payload, qos: message.qos,
                                               retain: message.retain, dup: dup, packetID: packetID)))
    }

    /// Sends queued messages while the socket takes them and the in-flight window allows.
    func drain(_ session: Session) {
        guard let connection = session.connection else { return }
        while let next = session.queue.first, connection.isWritable {
            if next.qos == .atMostOnce {
                _ = session.dequeue()
                heldBytes -= next.size
                sendPublish(next, packetID: 0, dup: false, on: connection)
            } else if session.inflight.count < configuration.maximumInflightMessages {
                _ = session.dequeue()
                heldBytes -= next.size
                sendInflight(next, session: session, on: connection)
            } else {
                break
            }
        }
    }

    /// PUBACK, PUBREC or PUBCOMP from the client for a message the broker sent.
    ///
    /// An acknowledgement of the wrong kind for the message's QoS flow (PUBREC or PUBCOMP for a
    /// QoS 1 message, PUBACK for a QoS 2 one, PUBCOMP before PUBREC) is a protocol violation: the
    /// connection is closed (MQTT-4.8.0-1) and nothing is answered. One for an id not in flight is
    /// ignored (a late duplicate after a resend) and gets no answer either.
    func handleAck(_ connection: MQTTConnection, _ session: Session, _ packet: MQTTPacket) {
        let id: UInt16
        let expected: InflightMessage.Stage
        switch packet {
        case .puback(let packetID): (id, expected) = (packetID, .awaitingPuback)
        case .pubrec(let packetID): (id, expected) = (packetID, .awaitingPubrec)
        case .pubcomp(let packetID): (id, expected) = (packetID, .awaitingPubcomp)
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

    func handleSubscribe(_ connection: MQTTConnection, _ session: Session, packetID: UInt16,
                         filters: [(filter: String, qos: UInt8)]) {
        var codes: [UInt8] = []
        var retainedToSend: [OutgoingMessage] = []
        let denials = readDenials
        for (filter, requested) in filters {
            guard MQTTTopic.isValidFilter(filter) else {
                logger.notice("'\(session.clientID)' sent the invalid topic filter '\(filter.prefix(80))'; refused")
                codes.append(0x80)
                continue
            }
            if let why = subscriptionLimitExceeded(filter, session: session) {
                statistics.subscriptionsRefused += 1
                logger.notice("'\(session.clientID)' may not subscribe to '\(filter.prefix(80))\(filter.utf8.count > 80 ? "…" : "")': \(why); refused")
                codes.append(0x80)
                continue
            }
            if let acl = configuration.accessControl,
               !acl.maySubscribe(filter: filter, user: session.username, clientID: session.clientID) {
                logger.notice("ACL: '\(session.clientID)' may not subscribe to \(filter); refused")
                codes.append(0x80)
                continue
            }
            let granted = HouseBroker.QoS(rawValue: requested) ?? .exactlyOnce
            subscriptionBytes += session.subscribe(filter, qos: granted)
            tree.insert(filter: filter, clientID: session.clientID, qos: granted)
            codes.append(granted.rawValue)
            logger.info("'\(session.clientID)' subscribed to \(filter) at \(granted)")
            for message in retained.values where MQTTTopic.matches(topic: message.topic, filter: filter)
                && Self.mayDeliver(message.topic, to: session, denials) {
                retainedToSend.append(OutgoingMessage(topic: message.topic, payload: message.buffer,
                                                      qos: min(message.qos, granted), retain: true))
            }
        }
        connection.send(.suback(packetID: packetID, codes: codes))
        for message in retainedToSend { deliver(message, to: session) }
    }

    func handleUnsubscribe(_ connection: MQTTConnection, _ session: Session, packetID: UInt16, filters: [String]) {
        for filter in filters {
            guard let freed = session.unsubscribe(filter) else { continue }
            subscriptionBytes -= freed
            tree.remove(filter: filter, clientID: session.clientID)
            logger.info("'\(session.clientID)' unsubscribed from \(filter)")
        }
        connection.send(.unsuback(packetID))
    }

    /// Why `session` may not add a subscription to the valid filter `filter`, or nil when it may.
    private func subscriptionLimitExceeded(_ filter: String, session: Session) -> String? {
        if let why = MQTTTopic.limitExceeded(filter, maximumLevels: configuration.maximumTopicLevels,
                                             maximumLength: configuration.maximumTopicLength) {
            return "the filter has \(why)"
        }
        // Replacing an existing subscription (a new QoS) costs nothing more.
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

    /// Closes every connection (wills are published unless `suppressWills`).
    package func closeAllConnections() {
        for connection in connections.values { connection.close() }
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
