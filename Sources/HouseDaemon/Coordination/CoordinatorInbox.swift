import Synchronization

/// Commands for the coordinator that came while no node coordinated (the old one gone, the next
/// not yet there): held, in order, for this node should it take over; the topic API carries them
/// out when it does, and drops them when another node does. Bounded, so a flood during a takeover
/// cannot grow it without end.
final class CoordinatorInbox: Sendable {
    /// The most commands held.
    static let capacity = 1024
    private let held = Mutex<[@Sendable () -> Void]>([])

    /// Holds `command`; false when `capacity` are held already.
    func hold(_ command: @escaping @Sendable () -> Void) -> Bool {
        held.withLock { h in
            guard h.count < Self.capacity else { return false }
            h.append(command)
            return true
        }
    }

    /// The held commands, oldest first; the inbox is empty after.
    func take() -> [@Sendable () -> Void] {
        held.withLock { h in
            defer { h = [] }
            return h
        }
    }
}
