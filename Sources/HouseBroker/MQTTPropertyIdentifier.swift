/// The property identifiers of MQTT 5 (section 2.2.2.2, table 2-4): each with its data type and the
/// packets that may carry it.
enum MQTTPropertyIdentifier: UInt8, CaseIterable {
    case payloadFormatIndicator = 0x01
    case messageExpiryInterval = 0x02
    case contentType = 0x03
    case responseTopic = 0x08
    case correlationData = 0x09
    case subscriptionIdentifier = 0x0B
    case sessionExpiryInterval = 0x11
    case assignedClientIdentifier = 0x12
    case serverKeepAlive = 0x13
    case authenticationMethod = 0x15
    case authenticationData = 0x16
    case requestProblemInformation = 0x17
    case willDelayInterval = 0x18
    case requestResponseInformation = 0x19
    case responseInformation = 0x1A
    case serverReference = 0x1C
    case reasonString = 0x1F
    case receiveMaximum = 0x21
    case topicAliasMaximum = 0x22
    case topicAlias = 0x23
    case maximumQoS = 0x24
    case retainAvailable = 0x25
    case userProperty = 0x26
    case maximumPacketSize = 0x27
    case wildcardSubscriptionAvailable = 0x28
    case subscriptionIdentifierAvailable = 0x29
    case sharedSubscriptionAvailable = 0x2A

    /// Where a property block is: in a packet of some type, or the will properties of a CONNECT.
    enum Context: Equatable, CustomStringConvertible {
        case packet(MQTTPacketType)
        case will

        var description: String {
            switch self {
            case .packet(let type): "\(type)"
            case .will: "the will properties"
            }
        }
    }

    /// Whether a property with this identifier may appear in `context`.
    func isAllowed(in context: Context) -> Bool {
        switch context {
        case .will:
            return [.payloadFormatIndicator, .messageExpiryInterval, .contentType, .responseTopic, .correlationData,
                    .willDelayInterval, .userProperty].contains(self)
        case .packet(let type):
            if self == .userProperty { return type != .pingreq && type != .pingresp }
            switch type {
            case .connect:
                return [.sessionExpiryInterval, .authenticationMethod, .authenticationData, .requestProblemInformation,
                        .requestResponseInformation, .receiveMaximum, .topicAliasMaximum, .maximumPacketSize].contains(self)
            case .connack:
                return [.sessionExpiryInterval, .assignedClientIdentifier, .serverKeepAlive, .authenticationMethod,
                        .authenticationData, .responseInformation, .serverReference, .reasonString, .receiveMaximum,
                        .topicAliasMaximum, .maximumQoS, .retainAvailable, .maximumPacketSize,
                        .wildcardSubscriptionAvailable, .subscriptionIdentifierAvailable,
                        .sharedSubscriptionAvailable].contains(self)
            case .publish:
                return [.payloadFormatIndicator, .messageExpiryInterval, .contentType, .responseTopic, .correlationData,
                        .subscriptionIdentifier, .topicAlias].contains(self)
            case .puback, .pubrec, .pubrel, .pubcomp, .suback, .unsuback:
                return self == .reasonString
            case .subscribe:
                return self == .subscriptionIdentifier
            case .disconnect:
                return [.sessionExpiryInterval, .serverReference, .reasonString].contains(self)
            case .auth:
                return [.authenticationMethod, .authenticationData, .reasonString].contains(self)
            case .unsubscribe, .pingreq, .pingresp:
                return false
            }
        }
    }

    /// Whether the property may appear more than once in `context` (MQTT 5 section 2.2.2.2: user
    /// properties always, subscription identifiers in a PUBLISH to a client; any other twice is a
    /// protocol error).
    func mayRepeat(in context: Context) -> Bool {
        self == .userProperty || (self == .subscriptionIdentifier && context == .packet(.publish))
    }
}
