import MQTTTopics
/// An MQTT 5 reason code, as CONNACK, SUBACK, PUBACK and DISCONNECT carry it. A code this
/// type does not know (or a future one) is kept as `.other`, never refused.
///
/// `description` is the text and the code: "not authorized (0x87)".
public enum MQTTReasonCode: Sendable, Hashable, CustomStringConvertible {
    /// 0x00: success.
    case success
    /// 0x01: granted QoS 1.
    case grantedQoS1
    /// 0x02: granted QoS 2.
    case grantedQoS2
    /// 0x04: disconnect with will message.
    case disconnectWithWillMessage
    /// 0x10: no matching subscribers.
    case noMatchingSubscribers
    /// 0x11: no subscription existed.
    case noSubscriptionExisted
    /// 0x18: continue authentication.
    case continueAuthentication
    /// 0x19: re-authenticate.
    case reAuthenticate
    /// 0x80: unspecified error.
    case unspecifiedError
    /// 0x81: malformed packet.
    case malformedPacket
    /// 0x82: protocol error.
    case protocolError
    /// 0x83: implementation specific error.
    case implementationSpecificError
    /// 0x84: unsupported protocol version.
    case unsupportedProtocolVersion
    /// 0x85: client identifier not valid.
    case clientIdentifierNotValid
    /// 0x86: bad user name or password.
    case badUserNameOrPassword
    /// 0x87: not authorized.
    case notAuthorized
    /// 0x88: server unavailable.
    case serverUnavailable
    /// 0x89: server busy.
    case serverBusy
    /// 0x8A: banned.
    case banned
    /// 0x8B: server shutting down.
    case serverShuttingDown
    /// 0x8C: bad authentication method.
    case badAuthenticationMethod
    /// 0x8D: keep alive timeout.
    case keepAliveTimeout
    /// 0x8E: session taken over.
    case sessionTakenOver
    /// 0x8F: topic filter invalid.
    case topicFilterInvalid
    /// 0x90: topic name invalid.
    case topicNameInvalid
    /// 0x91: packet identifier in use.
    case packetIdentifierInUse
    /// 0x92: packet identifier not found.
    case packetIdentifierNotFound
    /// 0x93: receive maximum exceeded.
    case receiveMaximumExceeded
    /// 0x94: topic alias invalid.
    case topicAliasInvalid
    /// 0x95: packet too large.
    case packetTooLarge
    /// 0x96: message rate too high.
    case messageRateTooHigh
    /// 0x97: quota exceeded.
    case quotaExceeded
    /// 0x98: administrative action.
    case administrativeAction
    /// 0x99: payload format invalid.
    case payloadFormatInvalid
    /// 0x9A: retain not supported.
    case retainNotSupported
    /// 0x9B: QoS not supported.
    case qosNotSupported
    /// 0x9C: use another server.
    case useAnotherServer
    /// 0x9D: server moved.
    case serverMoved
    /// 0x9E: shared subscriptions not supported.
    case sharedSubscriptionsNotSupported
    /// 0x9F: connection rate exceeded.
    case connectionRateExceeded
    /// 0xA0: maximum connect time.
    case maximumConnectTime
    /// 0xA1: subscription identifiers not supported.
    case subscriptionIdentifiersNotSupported
    /// 0xA2: wildcard subscriptions not supported.
    case wildcardSubscriptionsNotSupported
    /// A code without a name here.
    case other(UInt8)

    /// The code for `value` (`.other` when it has no name here).
    public init(_ value: UInt8) {
        switch value {
        case 0x00: self = .success
        case 0x01: self = .grantedQoS1
        case 0x02: self = .grantedQoS2
        case 0x04: self = .disconnectWithWillMessage
        case 0x10: self = .noMatchingSubscribers
        case 0x11: self = .noSubscriptionExisted
        case 0x18: self = .continueAuthentication
        case 0x19: self = .reAuthenticate
        case 0x80: self = .unspecifiedError
        case 0x81: self = .malformedPacket
        case 0x82: self = .protocolError
        case 0x83: self = .implementationSpecificError
        case 0x84: self = .unsupportedProtocolVersion
        case 0x85: self = .clientIdentifierNotValid
        case 0x86: self = .badUserNameOrPassword
        case 0x87: self = .notAuthorized
        case 0x88: self = .serverUnavailable
        case 0x89: self = .serverBusy
        case 0x8A: self = .banned
        case 0x8B: self = .serverShuttingDown
        case 0x8C: self = .badAuthenticationMethod
        case 0x8D: self = .keepAliveTimeout
        case 0x8E: self = .sessionTakenOver
        case 0x8F: self = .topicFilterInvalid
        case 0x90: self = .topicNameInvalid
        case 0x91: self = .packetIdentifierInUse
        case 0x92: self = .packetIdentifierNotFound
        case 0x93: self = .receiveMaximumExceeded
        case 0x94: self = .topicAliasInvalid
        case 0x95: self = .packetTooLarge
        case 0x96: self = .messageRateTooHigh
        case 0x97: self = .quotaExceeded
        case 0x98: self = .administrativeAction
        case 0x99: self = .payloadFormatInvalid
        case 0x9A: self = .retainNotSupported
        case 0x9B: self = .qosNotSupported
        case 0x9C: self = .useAnotherServer
        case 0x9D: self = .serverMoved
        case 0x9E: self = .sharedSubscriptionsNotSupported
        case 0x9F: self = .connectionRateExceeded
        case 0xA0: self = .maximumConnectTime
        case 0xA1: self = .subscriptionIdentifiersNotSupported
        case 0xA2: self = .wildcardSubscriptionsNotSupported
        default: self = .other(value)
        }
    }

    /// The code's byte.
    public var value: UInt8 {
        switch self {
        case .success: 0x00
        case .grantedQoS1: 0x01
        case .grantedQoS2: 0x02
        case .disconnectWithWillMessage: 0x04
        case .noMatchingSubscribers: 0x10
        case .noSubscriptionExisted: 0x11
        case .continueAuthentication: 0x18
        case .reAuthenticate: 0x19
        case .unspecifiedError: 0x80
        case .malformedPacket: 0x81
        case .protocolError: 0x82
        case .implementationSpecificError: 0x83
        case .unsupportedProtocolVersion: 0x84
        case .clientIdentifierNotValid: 0x85
        case .badUserNameOrPassword: 0x86
        case .notAuthorized: 0x87
        case .serverUnavailable: 0x88
        case .serverBusy: 0x89
        case .banned: 0x8A
        case .serverShuttingDown: 0x8B
        case .badAuthenticationMethod: 0x8C
        case .keepAliveTimeout: 0x8D
        case .sessionTakenOver: 0x8E
        case .topicFilterInvalid: 0x8F
        case .topicNameInvalid: 0x90
        case .packetIdentifierInUse: 0x91
        case .packetIdentifierNotFound: 0x92
        case .receiveMaximumExceeded: 0x93
        case .topicAliasInvalid: 0x94
        case .packetTooLarge: 0x95
        case .messageRateTooHigh: 0x96
        case .quotaExceeded: 0x97
        case .administrativeAction: 0x98
        case .payloadFormatInvalid: 0x99
        case .retainNotSupported: 0x9A
        case .qosNotSupported: 0x9B
        case .useAnotherServer: 0x9C
        case .serverMoved: 0x9D
        case .sharedSubscriptionsNotSupported: 0x9E
        case .connectionRateExceeded: 0x9F
        case .maximumConnectTime: 0xA0
        case .subscriptionIdentifiersNotSupported: 0xA1
        case .wildcardSubscriptionsNotSupported: 0xA2
        case .other(let value): value
        }
    }

    public static func == (a: MQTTReasonCode, b: MQTTReasonCode) -> Bool { a.value == b.value }
    public func hash(into hasher: inout Hasher) { hasher.combine(value) }

    /// Whether it reports a failure (0x80 and above).
    public var isFailure: Bool { value >= 0x80 }

    /// The code's name in the MQTT 5 specification, in lower case ("reason code 0xNN" for `.other`).
    public var text: String { MQTTReasonCodeNames.name(of: value) ?? "reason code" }

    /// "not authorized (0x87)".
    public var description: String {
        let hex = String(value, radix: 16, uppercase: true)
        return "\(text) (0x\(hex.count < 2 ? "0" : "")\(hex))"
    }
}
