/// The bounded queue of messages published while disconnected. Each entry expires after its time
/// to live; expired entries are dropped and counted instead of being sent. Times are offsets on the
/// client's clock.
///
/// A message with an MQTT 5 message expiry interval expires at the earlier of its time to live
/// and its expiry, and leaves the queue with what is left of its interval (rounded up to whole
/// seconds, so never less than 1 while it has not expired): the broker counts the interval from
/// when it receives the message, not from when it was published.
struct MQTTOfflineQueue: Sendable {
    struct Entry: Sendable, Equatable {
        var message: MQTTMessage
        /// Clock offset after which the message is stale; nil never expires.
        var deadline: Duration?
        /// Clock offset at which its message expiry interval runs out; nil without one.
        var expiry: Duration?
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
        let expiry = message.properties.messageExpiryInterval.map { now + .seconds($0) }
        let lived = timeToLive.map { now + $0 }
        let deadline = switch (lived, expiry) {
        case (let a?, let b?): min(a, b)
        case (let a, let b): a ?? b
        }
        entries.append(Entry(message: message, deadline: deadline, expiry: expiry))
        return expired
    }

    /// Drops expired entries; returns how many.
    mutating func purgeExpired(now: Duration) -> Int {
        let before = entries.count
        entries.removeAll { entry in entry.deadline.map { $0 <= now } ?? false }
        return before - entries.count
    }

    /// Takes every entry out: the live ones in publish order (each with what is left of its
    /// message expiry interval), and the number that had expired.
    mutating func drain(now: Duration) -> (live: [Entry], expired: Int) {
        let expired = purgeExpired(now: now)
        var live = entries
        entries.removeAll()
        for index in live.indices {
            guard let expiry = live[index].expiry else { continue }
            live[index].message.properties.messageExpiryInterval = Self.wholeSecondsLeft(until: expiry, now: now)
        }
        return (live, expired)
    }

    /// The seconds from `now` to `deadline` (which is later), rounded up.
    static func wholeSecondsLeft(until deadline: Duration, now: Duration) -> UInt32 {
        let (seconds, attoseconds) = (deadline - now).components
        return UInt32(clamping: seconds + (attoseconds > 0 ? 1 : 0))
    }
}
