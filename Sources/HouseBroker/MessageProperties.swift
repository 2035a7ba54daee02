import NIOCore

/// What an MQTT 5 application message carries from its publisher to every subscriber unchanged
/// (payload format, content type, response topic, correlation data, user properties) and when it
/// expires. One allocation per message that has any, shared by every copy queued for every
/// subscriber and by the retained store; a message without (every MQTT 3.1.1 message) has nil.
///
/// The message expiry interval is kept as a deadline: a copy still waiting when it passes is
/// dropped, and each delivery forwards the whole seconds that remain (MQTT-3.3.2-5, -6).
final class MessageProperties: Sendable {
    /// The forwarded properties: no message expiry, topic alias or subscription identifiers,
    /// which are per delivery.
    let forwarded: MQTTProperties
    /// `forwarded` encoded once (without the block length), for every delivery to an MQTT 5 client.
    let encodedForwarded: ByteBuffer
    /// The message expiry interval as received, and when it runs out.
    let expiryInterval: UInt32?
    let expiresAt: NIODeadline?

    /// The properties of a message received now with `properties` (a PUBLISH's or a will's), or
    /// nil when none of them travels with the message.
    static func make(from properties: MQTTProperties, receivedAt now: NIODeadline) -> MessageProperties? {
        var forwarded = MQTTProperties()
        forwarded.payloadFormat = properties.payloadFormat
        forwarded.contentType = properties.contentType
        forwarded.responseTopic = properties.responseTopic
        forwarded.correlationData = properties.correlationData
        forwarded.userProperties = properties.userProperties
        let interval = properties.messageExpiryInterval
        if interval == nil && forwarded.isEmpty { return nil }
        return MessageProperties(forwarded: forwarded, expiryInterval: interval, now: now)
    }

    private init(forwarded: MQTTProperties, expiryInterval: UInt32?, now: NIODeadline) {
        self.forwarded = forwarded
        var encoded = ByteBufferAllocator().buffer(capacity: forwarded.encodedLength)
        forwarded.write(into: &encoded)
        self.encodedForwarded = encoded
        self.expiryInterval = expiryInterval
        self.expiresAt = expiryInterval.map { now + .seconds(Int64($0)) }
    }

    /// The same properties with the expiry counted from `now` (a will when it is published).
    func restamped(at now: NIODeadline) -> MessageProperties {
        MessageProperties(forwarded: forwarded, expiryInterval: expiryInterval, now: now)
    }

    /// Whether the message expiry interval has passed at `now`.
    func isExpired(at now: NIODeadline) -> Bool {
        guard let expiresAt else { return false }
        return now >= expiresAt
    }

    /// The whole seconds of the expiry interval left at `now` (rounded up, so at least 1 until it
    /// passes), or nil without an expiry.
    func remainingExpiry(at now: NIODeadline) -> UInt32? {
        guard let expiresAt else { return nil }
        let nanoseconds = (expiresAt - now).nanoseconds
        guard nanoseconds > 0 else { return 0 }
        return UInt32(min((nanoseconds + 999_999_999) / 1_000_000_000, Int64(UInt32.max)))
    }

    /// The properties as the publisher sent them (with its message expiry interval).
    var asPublished: MQTTProperties {
        var properties = forwarded
        properties.messageExpiryInterval = expiryInterval
        return properties
    }
}
