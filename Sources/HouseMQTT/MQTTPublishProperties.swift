import MQTTTopics

/// The MQTT 5 properties of a message: sent with a publish on an MQTT 5 connection, and filled
/// from what the broker delivered on receive. Empty by default.
///
/// On an MQTT 3.1.1 connection nothing of this is sent: the message goes out without them, with
/// no error. `messageExpiryInterval` still limits how long the message may wait in the client's
/// offline queue (as its time to live does).
public struct MQTTPublishProperties: Sendable, Hashable {
    /// Seconds after which the broker drops the message when it has not delivered it (also a
    /// retained one). At least 1. On receive: what is left of it. A message that waits in the
    /// client's offline queue is sent with what is left (rounded up to whole seconds), or
    /// dropped once it has run out.
    public var messageExpiryInterval: UInt32?
    /// Where the receiver should publish its answer (a topic name, no wildcards).
    public var responseTopic: String?
    /// Bytes the requester uses to match an answer to its request (at most 65,535).
    public var correlationData: [UInt8]?
    /// The payload's MIME type or similar (e.g. `application/json`).
    public var contentType: String?
    /// Whether the payload is UTF-8 text or bytes.
    public var payloadFormatIndicator: MQTTPayloadFormatIndicator?
    /// Name-value pairs, in order (a name may repeat).
    public var userProperties: [MQTTUserProperty]
    /// On receive: the identifiers of the subscriptions this message was delivered for
    /// (`MQTTSubscribeOptions.subscriptionIdentifier`). Never sent with a publish.
    public var subscriptionIdentifiers: [Int]

    public init(
        messageExpiryInterval: UInt32? = nil, responseTopic: String? = nil, correlationData: [UInt8]? = nil,
        contentType: String? = nil, payloadFormatIndicator: MQTTPayloadFormatIndicator? = nil,
        userProperties: [MQTTUserProperty] = [], subscriptionIdentifiers: [Int] = []
    ) {
        self.messageExpiryInterval = messageExpiryInterval
        self.responseTopic = responseTopic
        self.correlationData = correlationData
        self.contentType = contentType
        self.payloadFormatIndicator = payloadFormatIndicator
        self.userProperties = userProperties
        self.subscriptionIdentifiers = subscriptionIdentifiers
    }

    /// Whether no property is set.
    public var isEmpty: Bool {
        messageExpiryInterval == nil && responseTopic == nil && correlationData == nil && contentType == nil
            && payloadFormatIndicator == nil && userProperties.isEmpty && subscriptionIdentifiers.isEmpty
    }

    /// Throws `invalidProperty` for what an MQTT 5 broker would refuse (or what cannot be
    /// encoded): an expiry of 0, a response topic that is no topic name, text with a control
    /// character or a non-character or longer than 65,535 bytes, correlation data over 65,535
    /// bytes, a UTF-8 indicator on a payload that is not UTF-8. Checked on 3.1.1 connections too.
    func validate(topic: String, payload: [UInt8]) throws(MQTTError) {
        func fail(_ name: String, _ reason: String) -> MQTTError { .invalidProperty(topic: topic, property: name, reason: reason) }
        func checkText(_ name: String, _ text: String) throws(MQTTError) {
            if text.utf8.count > 65_535 { throw fail(name, "it is \(text.utf8.count) bytes, over 65,535") }
            // What libmosquitto (and a strict broker) refuses in MQTT text: control characters and
            // non-characters.
            if let scalar = text.unicodeScalars.first(where: Self.isRefused) {
                let code = String(scalar.value, radix: 16, uppercase: true)
                throw fail(name, "it contains U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code), which MQTT text may not carry")
            }
        }
        if messageExpiryInterval == 0 { throw fail("message expiry interval", "it must be at least 1 second") }
        if let responseTopic {
            do {
                try MQTTError.checkTopicName(responseTopic)
            } catch {
                if case .invalidTopic(_, let reason) = error { throw fail("response topic", reason) }
                throw error
            }
            try checkText("response topic", responseTopic)
        }
        if let correlationData, correlationData.count > 65_535 {
            throw fail("correlation data", "it is \(correlationData.count) bytes, over 65,535")
        }
        if let contentType { try checkText("content type", contentType) }
        for property in userProperties {
            try checkText("user property name", property.name)
            try checkText("user property '\(property.name)'", property.value)
        }
        if payloadFormatIndicator == .utf8, String(validating: payload, as: UTF8.self) == nil {
            throw fail("payload format indicator", "it says UTF-8 but the payload is not valid UTF-8")
        }
    }

    /// U+0000-U+001F, U+007F-U+009F, U+FDD0-U+FDEF and U+xFFFE/U+xFFFF.
    private static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v <= 0x1F || (0x7F...0x9F).contains(v) || (0xFDD0...0xFDEF).contains(v) || v & 0xFFFE == 0xFFFE
    }
}
