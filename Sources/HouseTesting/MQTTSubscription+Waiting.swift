import Foundation
import HouseDaemon
import HouseMQTT

extension MQTTSubscription {
    /// The next message, failing with `TimeoutError` after `timeout`.
    public func next(_ what: String = "a message", timeout: Duration = .seconds(20)) async throws -> MQTTMessage {
        try await first(what, timeout: timeout) { _ in true }
    }

    /// The first message that satisfies `predicate`, failing with `TimeoutError` after `timeout`.
    public func first(_ what: String, timeout: Duration = .seconds(20),
                      where predicate: @escaping @Sendable (MQTTMessage) -> Bool) async throws -> MQTTMessage {
        try await withTimeout(timeout, what) {
            for try await m in self where predicate(m) { return m }
            throw TimeoutError(what: "\(what) (stream ended)", after: .zero)
        }
    }
}

extension MQTTSubscription {
    /// The next message, decoded as a controller's reply, failing with `TimeoutError` after `timeout`.
    public func nextReply(_ what: String = "a reply", timeout: Duration = .seconds(20)) async throws -> IntentReply {
        try JSONDecoder().decode(IntentReply.self, from: Data(try await next(what, timeout: timeout).payload))
    }
}
