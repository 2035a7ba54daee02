import NIOCore

/// How sessions end and wills wait (MQTT 5 sections 3.1.2.5, 3.1.2.11, 3.1.3.2; MQTT 3.1.1 is the
/// case of an expiry interval of 0 or forever and no will delay).
extension BrokerCore {
    /// A new connection takes up `session`: its expiry stops, and a will still waiting for its
    /// delay is not published (MQTT-3.1.3-9).
    func resume(_ session: Session) {
        session.expiryTimer?.cancel()
        session.expiryTimer = nil
        cameBack(session)
        if session.pendingWill != nil {
            logger.info("'\(session.clientID)' is back within its will delay; the will is not published")
            cancelPendingWill(of: session)
        }
    }

    /// Ends a session now (its expiry interval passed, or a clean start replaces it): a will
    /// still waiting for its delay is published, as the session's end comes first (MQTT-3.1.3-9).
    func endSession(_ session: Session) {
        let will = session.pendingWill
        cancelPendingWill(of: session)
        discard(session)
        if let will { publishWill(will, of: session) }
    }

    /// Keeps `will` in `session` until its delay interval passes (or the session ends first).
    func delayWill(_ will: WillMessage, of session: Session) {
        session.pendingWill = will
        heldBytes += will.size
        logger.info("the will of '\(session.clientID)' waits \(will.delayInterval)s, its will delay")
        session.willTimer = loop.assumeIsolated().scheduleTask(in: .seconds(Int64(will.delayInterval))) { [weak self, weak session] in
            guard let self, let session, let will = session.pendingWill else { return }
            self.cancelPendingWill(of: session)
            self.publishWill(will, of: session)
            self.finishEvent()
        }
    }

    private func cancelPendingWill(of session: Session) {
        if let will = session.pendingWill { heldBytes -= will.size }
        session.pendingWill = nil
        session.willTimer?.cancel()
        session.willTimer = nil
    }

    /// Ends the offline `session` when its expiry interval passes: never for 0xFFFFFFFF (MQTT 5
    /// section 3.1.2.11.2); an MQTT 3.1.1 session of clean session 0 (an interval of 0xFFFFFFFF
    /// too) after `persistentSessionExpiry`, when set.
    func scheduleExpiry(of session: Session) {
        let delay: Duration
        if session.expiryInterval != .max {
            delay = .seconds(session.expiryInterval)
        } else if session.protocolVersion != .v5, let limit = configuration.persistentSessionExpiry {
            delay = limit
        } else {
            return
        }
        session.expiryTimer?.cancel()
        session.expiryTimer = loop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) { [weak self, weak session] in
            guard let self, let session, session.connection == nil, self.sessions[session.clientID] === session else { return }
            self.logger.info("the session of '\(session.clientID)' expired after \(delay) without a connection")
            self.statistics.sessionsExpired += 1
            self.endSession(session)
            self.finishEvent()
        }
    }

    /// Counts `session` as offline (its connection ended, the session lives on) and, past
    /// `maximumOfflineSessions`, ends the sessions offline longest (their delayed wills are published).
    func wentOffline(_ session: Session) {
        offlineNumber += 1
        session.offlineNumber = offlineNumber
        offlineOrder.append((session.clientID, offlineNumber))
        offlineSessionCount += 1
        while offlineSessionCount > configuration.maximumOfflineSessions, let oldest = offlineOrder.popFirst() {
            guard let stale = sessions[oldest.clientID], stale.offlineNumber == oldest.number else { continue }
            logger.notice("discarding the offline session of '\(oldest.clientID)': \(configuration.maximumOfflineSessions) offline sessions are kept (maximumOfflineSessions)")
            statistics.sessionsExpired += 1
            endSession(stale)
        }
        // Entries of sessions that came back are dropped here, so that the order stays within
        // twice the sessions it orders.
        if offlineOrder.count > 2 * offlineSessionCount + 64 {
            offlineOrder = CircularBuffer(offlineOrder.filter { sessions[$0.clientID]?.offlineNumber == $0.number })
        }
    }

    /// `session` is no longer offline: a connection took it up again, or it ended.
    func cameBack(_ session: Session) {
        guard session.offlineNumber != nil else { return }
        session.offlineNumber = nil
        offlineSessionCount -= 1
    }

    func publishWill(_ will: WillMessage, of session: Session) {
        logger.info("publishing will of '\(session.clientID)' to \(will.topic)")
        publish(topic: will.topic, payload: will.payload, qos: will.qos, retain: will.retain,
                properties: will.properties?.restamped(at: .now()), from: session.clientID,
                username: session.username, isWill: true)
    }

    /// DISCONNECT from a client. Reason code 0 discards the will (MQTT-3.14.4-3); any other (0x04
    /// asks for it) publishes it. An MQTT 5 client may change its session expiry interval, but
    /// not from 0 to more (MQTT-3.14.2-2: a protocol error).
    func handleDisconnect(_ connection: MQTTConnection, _ session: Session, _ packet: DisconnectPacket) {
        if let expiry = packet.properties.sessionExpiryInterval {
            if session.expiryInterval == 0 && expiry != 0 {
                return connection.protocolViolation("DISCONNECT sets a session expiry interval of \(expiry)s where CONNECT's was 0 (MQTT-3.14.2-2)")
            }
            session.expiryInterval = expiry
        }
        if packet.reasonCode != .success {
            logger.info("'\(session.clientID)' disconnects with reason code \(packet.reasonCode)\(packet.properties.reasonString.map { ": \($0)" } ?? "")")
        }
        detach(connection, publishWill: packet.reasonCode != .success)
        connection.close()
    }
}
