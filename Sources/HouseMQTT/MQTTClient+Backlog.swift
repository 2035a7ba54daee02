import Signals

extension MQTTClient {
    /// Held messages (waiting behind the in-flight window) past which `waitForRoom` waits...
    public static let backlogHigh = 512
    /// ... and down to which it then waits.
    public static let backlogLow = 128

    /// Returns when the client can take more messages without a long line of them waiting behind
    /// its in-flight window: at once unless it is connected and holds more than `backlogHigh`;
    /// otherwise once they are down to `backlogLow`, the connection is lost, the client closes,
    /// or `limit` has passed. A producer that can wait (the controller's command bus) calls it
    /// before making more: while the broker acknowledges more slowly than messages come, the work
    /// waits where it is cheaper to keep (a queued command, not the messages it would publish).
    ///
    /// After a wait that ran out of time (a broker that stopped acknowledging without the
    /// connection dropping yet), it returns at once until the backlog is down to `backlogLow`
    /// or the connection changes, so a stuck broker never slows the producer to one message per
    /// `limit`. Returns false when it waited and the time ran out.
    ///
    /// It runs on the caller's executor (`nonisolated(nonsending)`): the bus asks before every
    /// command, and it nearly always returns at once. As a `@concurrent` function it left the
    /// caller's actor and came back, two more jobs on the engine's lane per command.
    @discardableResult
    nonisolated(nonsending) public func waitForRoom(atMost limit: Duration) async -> Bool {
        let room: OneShot<Void>? = state.withLock { s in
            guard s.phase == .connected, !s.backlogStalled, s.held.count > Self.backlogHigh else { return nil }
            if let waiting = s.backlogRoom { return waiting }
            let room = OneShot<Void>()
            s.backlogRoom = room
            s.statistics.backlogWaits += 1
            return room
        }
        guard let room else { return true }
        switch await clock.wait(for: room, timeout: limit, interruptedBy: nil) {
        case .value, .interrupted:
            return true
        case .timedOut:
            let stalled = state.withLock { s -> Bool in
                guard s.backlogRoom === room else { return false }
                s.backlogRoom = nil
                s.backlogStalled = true
                return true
            }
            if stalled {
                room.fulfill(())
                logger.warning("the broker has not acknowledged for \(limit) with more than \(Self.backlogHigh) messages waiting; going on without waiting for it")
            }
            return false
        }
    }
}

extension ClientState {
    /// Wakes `waitForRoom` once the backlog is down to `backlogLow` (called under the client's
    /// lock after held messages went out), and ends a stall there.
    mutating func backlogShrank(_ fx: inout ClientEffects) {
        guard held.count <= MQTTClient.backlogLow else { return }
        backlogReleased(&fx)
    }

    /// Wakes `waitForRoom` whatever the backlog (the connection was lost or the client closes:
    /// the held messages wait for the next connection, and the producer must not wait with them).
    mutating func backlogReleased(_ fx: inout ClientEffects) {
        backlogStalled = false
        if let room = backlogRoom {
            backlogRoom = nil
            fx.add { room.fulfill(()) }
        }
    }
}
