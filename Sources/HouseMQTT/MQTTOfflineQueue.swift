/// The bounded queue of messages published while disconnected. Each entry expires after its time
/// to live; expired entries are dropped and counted instead of being sent. Times are offsets on the
/// client's clock.
struct MQTTOfflineQueue: Sendable {
    struct Entry: Sendable, Equatable {
        var message: MQTTMessage
        /// Clock offset after which the message is stale; nil never expires.
        var deadline: Duration?
    }

    let capacity: Int
    private(set) var entries: [Entry] = []

    init(capacity: Int) { self.capacity = max(0, capacity) }

    var count: Int { entries.count }

    /// Appends `message`. Expired entries are purged first (their number is returned); throws
    /// `offlineQueueFull` when there is still no room.
    mutating func enqueue(_ message: MQTTMessage, now: Duration, timeToLive: Duration?) throws -> Int {
        var expired = 0
        if entries.count >= capacity { expired = purgeExpired(now: now) }
        guard entries.count < capacity else { throw MQTTError.offlineQueueFull(capacity: capacity) }
        entries.append(Entry(message: message, deadline: timeToLive.map { now + $0 }))
        return expired
    }

    /// Drops expired entries; returns how many.
    mutating func purgeExpired(now: Duration) -> Int {
        let before = entries.count
        entries.removeAll { entry in entry.deadline.map { $0 <= now } ?? false }
        return before - entries.count
    }

    /// Takes every entry out: the live ones in publish order, and the number that had expired.
    mutating func drain(now: Duration) -> (live: [Entry], expired: Int) {
        let expired = purgeExpired(now: now)
        let live = entries
        entries.removeAll()
        return (live, expired)
    }
}
