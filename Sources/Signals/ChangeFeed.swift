import Synchronization

/// Tells any number of watchers that something changed: each watcher has its own `WakeSignal`,
/// so a change while a watcher is busy is not lost, and changes in a burst wake it once. Cheap
/// when nobody watches (one lock, an empty table): the command path calls `changed()` after
/// every command.
public final class ChangeFeed: Sendable {
    private let watchers = Mutex<[Int: WakeSignal]>([:])
    private let nextID = Atomic<Int>(0)

    public init() {}

    /// Wakes every watcher.
    public func changed() {
        let signals = watchers.withLock { $0.isEmpty ? [] : Array($0.values) }
        for signal in signals { signal.signal() }
    }

    /// How many watch now.
    public var watcherCount: Int { watchers.withLock { $0.count } }

    /// Runs `body` with a signal that `changed()` wakes, until `body` returns.
    public func watch<T>(isolation: isolated (any Actor)? = #isolation, _ body: (WakeSignal) async throws -> T) async rethrows -> T {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let signal = WakeSignal()
        watchers.withLock { $0[id] = signal }
        defer { _ = watchers.withLock { $0.removeValue(forKey: id) } }
        return try await body(signal)
    }
}
