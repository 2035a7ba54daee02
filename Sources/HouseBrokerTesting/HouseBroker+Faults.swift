import HouseBroker

/// Fault injection for tests: what a network failure, a stalled or refusing broker, or a restart
/// does to clients. Built on the broker's package-level hooks; nothing of it ships in HouseBroker.
extension HouseBroker {
    /// Closes every client connection as a network failure would: wills are published and
    /// persistent sessions stay. The broker keeps listening.
    public func dropAllConnections() async {
        _ = try? await onLoop { $0.closeAllConnections() }
    }

    /// Cuts one client off as a dead machine would be: its connection closes without a DISCONNECT
    /// (its will is published) and its reconnects are refused until `reconnect(clientID:)`.
    public func cutOff(clientID: String) async {
        _ = try? await onLoop { core in
            core.refusedClientIDs.insert(clientID)
            core.closeConnections(of: clientID)
        }
    }

    /// Lets a client cut off by `cutOff(clientID:)` connect again.
    public func reconnect(clientID: String) async {
        _ = try? await onLoop { $0.refusedClientIDs.remove(clientID) }
    }

    /// Stops reading from every client (current and new) until `resumeReading()`: their packets
    /// pile up in the kernel, as with a stalled broker. Keepalive is not enforced while paused.
    public func pauseReading() async {
        _ = try? await onLoop { $0.setReadingPaused(true) }
    }

    /// Resumes reading after `pauseReading()`.
    public func resumeReading() async {
        _ = try? await onLoop { $0.setReadingPaused(false) }
    }

    /// Answers every new CONNECT with `code` (and closes), or admits clients again with `nil`.
    public func refuseConnections(with code: ConnectReturnCode?) async {
        let code = code == .accepted ? nil : code
        _ = try? await onLoop { $0.refuseCode = code }
    }

    /// Stops (as `shutdown()`) and listens again on the same port, optionally forgetting retained
    /// messages and sessions, as a broker restarted with or without persistence would.
    public func restart(keepingRetained: Bool = true, keepingSessions: Bool = true) async throws {
        await shutdown()
        try await onLoop { core in
            if !keepingRetained { core.removeAllRetained() }
            if !keepingSessions { core.removeAllSessions() }
        }
        let core = self.core
        let loop = self.loop
        let host = self.host
        let port = self.port
        _ = try await Self.bindListener(core: core, loop: loop, host: host, port: port)
        if let local = loopbackPort {
            _ = try await Self.bindListener(core: core, loop: loop, host: "127.0.0.1", port: local, plain: true)
        }
        try await onLoop { $0.logger.info("MQTT broker listening again on \(host):\(port)") }
    }
}
