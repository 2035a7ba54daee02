import Testing
@testable import HouseMQTT

@Suite("Offline queue")
struct OfflineQueueTests {
    func message(_ n: Int) -> MQTTMessage { MQTTMessage(topic: "t/\(n)", string: "\(n)", qos: .atLeastOnce) }

    @Test func drainsInPublishOrderAndDropsExpired() throws {
        var queue = MQTTOfflineQueue(capacity: 10)
        _ = try queue.enqueue(message(1), now: .seconds(0), timeToLive: .seconds(60))
        _ = try queue.enqueue(message(2), now: .seconds(1), timeToLive: .seconds(5))
        _ = try queue.enqueue(message(3), now: .seconds(2), timeToLive: nil)
        _ = try queue.enqueue(message(4), now: .seconds(3), timeToLive: .seconds(60))
        let (live, expired) = queue.drain(now: .seconds(10))
        #expect(live.map(\.message) == [message(1), message(3), message(4)])
        #expect(expired == 1)
        #expect(queue.count == 0)
    }

    @Test func aMessageExpiresExactlyAtItsDeadline() throws {
        var queue = MQTTOfflineQueue(capacity: 2)
        _ = try queue.enqueue(message(1), now: .seconds(0), timeToLive: .seconds(5))
        #expect(queue.purgeExpired(now: .milliseconds(4999)) == 0)
        #expect(queue.purgeExpired(now: .seconds(5)) == 1)
    }

    @Test func fullQueueRejectsNewMessagesAfterPurgingExpiredOnes() throws {
        var queue = MQTTOfflineQueue(capacity: 2)
        _ = try queue.enqueue(message(1), now: .zero, timeToLive: .seconds(1))
        _ = try queue.enqueue(message(2), now: .zero, timeToLive: .seconds(100))
        #expect(throws: MQTTError.offlineQueueFull(capacity: 2)) {
            _ = try queue.enqueue(message(3), now: .milliseconds(500), timeToLive: nil)
        }
        // Once message 1 has expired there is room again; the purge is counted.
        let expired = try queue.enqueue(message(3), now: .seconds(2), timeToLive: nil)
        #expect(expired == 1)
        #expect(queue.entries.map(\.message) == [message(2), message(3)])
    }

    func expiring(_ n: Int, _ seconds: UInt32) -> MQTTMessage {
        MQTTMessage(topic: "t/\(n)", string: "\(n)", qos: .atLeastOnce, properties: MQTTPublishProperties(messageExpiryInterval: seconds))
    }

    /// A message with an MQTT 5 expiry leaves with what is left of it, rounded up to whole seconds.
    @Test func aMessageLeavesWithWhatIsLeftOfItsExpiry() throws {
        var queue = MQTTOfflineQueue(capacity: 10)
        _ = try queue.enqueue(expiring(1, 10), now: .zero, timeToLive: .seconds(60))
        _ = try queue.enqueue(expiring(2, 10), now: .seconds(2), timeToLive: nil)
        _ = try queue.enqueue(message(3), now: .seconds(2), timeToLive: nil)
        let (live, expired) = queue.drain(now: .milliseconds(3500))
        #expect(expired == 0)
        #expect(live.map { $0.message.properties.messageExpiryInterval } == [7, 9, nil])
        #expect(live.map(\.message.topic) == ["t/1", "t/2", "t/3"])
    }

    /// The expiry ends a message's wait in the queue when it comes before its time to live.
    @Test func theEarlierOfExpiryAndTimeToLiveDrops() throws {
        var queue = MQTTOfflineQueue(capacity: 10)
        _ = try queue.enqueue(expiring(1, 3), now: .zero, timeToLive: .seconds(60))
        _ = try queue.enqueue(expiring(2, 60), now: .zero, timeToLive: .seconds(3))
        _ = try queue.enqueue(expiring(3, 4), now: .zero, timeToLive: nil)
        #expect(queue.purgeExpired(now: .milliseconds(2999)) == 0)
        let (live, expired) = queue.drain(now: .seconds(3))
        #expect(expired == 2)
        #expect(live.map(\.message.topic) == ["t/3"])
        #expect(live.first?.message.properties.messageExpiryInterval == 1)
    }
}
