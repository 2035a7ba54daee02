import Synchronization

/// Lets a client that runs in the broker's own process (housectl's controller) hold back the
/// clients that publish to it while it is behind, so that a flood of commands waits in the
/// publishers' sockets instead of in the controller's memory.
///
/// While the client is behind (the valve is closed, or what the broker sends it no longer fits
/// its connection's buffers), a connection whose PUBLISH the broker has just delivered to the
/// client is not read any further until the client has caught up, or until `maximumPause` has
/// passed (a consumer that is stuck never stops a publisher for good). The valve's own client is
/// never held back (it must go on reading what answers its own publishes), and what the held
/// connection already sent is delivered as usual: nothing is dropped, a publisher only waits.
public final class IntakeValve: Sendable {
    /// The client whose intake the valve guards.
    public let clientID: String
    /// The longest the broker holds back one connection at a time.
    public let maximumPause: Duration
    /// What the broker lets wait for the client on its way (the connection's kernel send buffer,
    /// and as much again in the broker's own queue of writes) before the client counts as behind.
    /// A command of a flood is about 45 bytes: with the default buffers of a loopback connection
    /// (and the broker's 512 kB of queued writes for any other client), thousands of commands
    /// were already on their way to the client when the valve closed.
    public let bufferedBytes: Int

    private struct State {
        var closed = false
        var waiting: [@Sendable () -> Void] = []
    }
    private let state = Mutex(State())

    public init(clientID: String, maximumPause: Duration = .seconds(1), bufferedBytes: Int = 16 * 1024) {
        self.clientID = clientID
        self.maximumPause = maximumPause
        self.bufferedBytes = bufferedBytes
    }

    /// Whether publishers to the client are held back now.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Holds back the publishers to the client, from their next PUBLISH on.
    public func close() {
        state.withLock { $0.closed = true }
    }

    /// Lets every held-back publisher go on.
    public func open() {
        let waiting = state.withLock { s -> [@Sendable () -> Void] in
            s.closed = false
            defer { s.waiting = [] }
            return s.waiting
        }
        for resume in waiting { resume() }
    }

    /// Calls `resume` once the valve opens; false, without calling it, when it is open now.
    func whenOpen(_ resume: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { s in
            guard s.closed else { return false }
            s.waiting.append(resume)
            return true
        }
    }
}
