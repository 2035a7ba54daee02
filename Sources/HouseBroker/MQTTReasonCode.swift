import MQTTTopics
/// The reason codes of MQTT 5 (section 2.4): the byte in CONNACK, PUBACK, PUBREC, PUBREL, PUBCOMP,
/// SUBACK, UNSUBACK, DISCONNECT and AUTH that says how an operation went. Below 0x80 it went well;
/// from 0x80 on it failed. MQTT 3.1.1 clients never see them (their packets carry the 3.1.1 codes).
public enum MQTTReasonCode: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// Success; in DISCONNECT normal disconnection; in SUBACK granted QoS 0.
    case success = 0x00
    case grantedQoS1 = 0x01
    case grantedQoS2 = 0x02
    /// DISCONNECT from a client: close, and publish the will.
    case disconnectWithWillMessage = 0x04
    case noMatchingSubscribers = 0x10
    case noSubscriptionExisted = 0x11
    case continueAuthentication = 0x18
    case reAuthenticate = 0x19
    case unspecifiedError = 0x80
    case malformedPacket = 0x81
    case protocolError = 0x82
    case implementationSpecificError = 0x83
    case unsupportedProtocolVersion = 0x84
    case clientIdentifierNotValid = 0x85
    case badUserNameOrPassword = 0x86
    case notAuthorized = 0x87
    case serverUnavailable = 0x88
    case serverBusy = 0x89
    case banned = 0x8A
    case serverShuttingDown = 0x8B
    case badAuthenticationMethod = 0x8C
    case keepAliveTimeout = 0x8D
    case sessionTakenOver = 0x8E
    case topicFilterInvalid = 0x8F
    case topicNameInvalid = 0x90
    case packetIdentifierInUse = 0x91
    case packetIdentifierNotFound = 0x92
    case receiveMaximumExceeded = 0x93
    case topicAliasInvalid = 0x94
    case packetTooLarge = 0x95
    case messageRateTooHigh = 0x96
    case quotaExceeded = 0x97
    case administrativeAction = 0x98
    case payloadFormatInvalid = 0x99
    case retainNotSupported = 0x9A
    case qosNotSupported = 0x9B
    case useAnotherServer = 0x9C
    case serverMoved = 0x9D
    case sharedSubscriptionsNotSupported = 0x9E
    case connectionRateExceeded = 0x9F
    case maximumConnectTime = 0xA0
    case subscriptionIdentifiersNotSupported = 0xA1
    case wildcardSubscriptionsNotSupported = 0xA2

    /// Whether the code reports a failure (0x80 and above).
    public var isFailure: Bool { rawValue >= 0x80 }

    /// The SUBACK code granting `qos`.
    public static func granted(_ qos: HouseBroker.QoS) -> MQTTReasonCode {
        switch qos {
        case .atMostOnce: .success
        case .atLeastOnce: .grantedQoS1
        case .exactlyOnce: .grantedQoS2
        }
    }

    /// Whether the code may be sent in a packet of `type` (table 2-6 and each packet's list).
    func isValid(in type: MQTTPacketType) -> Bool {
        switch type {
        case .puback, .pubrec:
            return [.success, .noMatchingSubscribers, .unspecifiedError, .implementationSpecificError, .notAuthorized,
                    .topicNameInvalid, .packetIdentifierInUse, .quotaExceeded, .payloadFormatInvalid].contains(self)
        case .pubrel, .pubcomp:
            return self == .success || self == .packetIdentifierNotFound
        case .disconnect:
            switch self {
            case .success, .disconnectWithWillMessage: return true
            case .grantedQoS1, .grantedQoS2, .noMatchingSubscribers, .noSubscriptionExisted, .continueAuthentication,
                 .reAuthenticate, .unsupportedProtocolVersion, .clientIdentifierNotValid, .badUserNameOrPassword,
                 .serverUnavailable, .banned, .badAuthenticationMethod, .packetIdentifierInUse,
                 .packetIdentifierNotFound:
                return false
            default: return true
            }
        case .auth:
            return self == .success || self == .continueAuthentication || self == .reAuthenticate
        default:
            return false
        }
    }

    public var description: String {
        let name = MQTTReasonCodeNames.name(of: rawValue) ?? "reason code"
        let hex = String(rawValue, radix: 16, uppercase: true)
        return "0x\(hex.count == 1 ? "0" : "")\(hex) (\(name))"
    }
}

extension MQTTReasonCode {
    /// The MQTT 5 CONNACK code for a 3.1.1 return code.
    public init(_ code: HouseBroker.ConnectReturnCode) {
        self = switch code {
        case .accepted: .success
        case .unacceptableProtocolVersion: .unsupportedProtocolVersion
        case .identifierRejected: .clientIdentifierNotValid
        case .serverUnavailable: .serverUnavailable
        case .badUsernameOrPassword: .badUserNameOrPassword
        case .notAuthorized: .notAuthorized
        }
    }
}
