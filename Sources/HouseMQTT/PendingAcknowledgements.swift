/// The waiters for libmosquitto acknowledgements by message id, counting the QoS 1/2 publishes
/// among them: the messages libmosquitto holds until the broker acknowledges them (the in-flight
/// window's measure, see `MQTTConfiguration.maximumInFlight`).
struct PendingAcknowledgements: Sendable {
    private var waiters: [Int32: AckWaiter] = [:]
    /// QoS 1/2 publishes among the waiters.
    private(set) var inFlight = 0

    var isEmpty: Bool { waiters.isEmpty }
    var values: Dictionary<Int32, AckWaiter>.Values { waiters.values }
    /// Every waiter with its message id.
    var entries: [Int32: AckWaiter] { waiters }

    subscript(mid: Int32) -> AckWaiter? {
        get { waiters[mid] }
        set {
            if let newValue { updateValue(newValue, forKey: mid) } else { removeValue(forKey: mid) }
        }
    }

    /// One lookup of the dictionary per change (a command's state and event each add a waiter
    /// and remove it at their PUBACK).
    @discardableResult
    mutating func removeValue(forKey mid: Int32) -> AckWaiter? {
        let old = waiters.removeValue(forKey: mid)
        if let old, old.isInFlightPublish { inFlight -= 1 }
        return old
    }

    @discardableResult
    mutating func updateValue(_ waiter: AckWaiter, forKey mid: Int32) -> AckWaiter? {
        let old = waiters.updateValue(waiter, forKey: mid)
        if let old, old.isInFlightPublish { inFlight -= 1 }
        if waiter.isInFlightPublish { inFlight += 1 }
        return old
    }

    /// The id of the publish waited for under `key` (see `AckWaiter.publish`).
    func mid(ofPublish key: UInt64) -> Int32? {
        waiters.first { if case .publish(_, key, _, _) = $0.value { true } else { false } }?.key
    }

    mutating func removeAll() {
        waiters.removeAll()
        inFlight = 0
    }
}
