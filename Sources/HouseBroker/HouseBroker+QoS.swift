extension HouseBroker {
    /// The MQTT quality of service levels.
    public enum QoS: UInt8, Sendable, Hashable, Comparable, CustomStringConvertible {
        /// QoS 0: fire and forget.
        case atMostOnce = 0
        /// QoS 1: acknowledged with PUBACK, may be duplicated.
        case atLeastOnce = 1
        /// QoS 2: four-step handshake, delivered exactly once.
        case exactlyOnce = 2

        public static func < (lhs: QoS, rhs: QoS) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String { "QoS \(rawValue)" }
    }

    /// The CONNACK return codes of MQTT 3.1.1 (section 3.2.2.3).
    public enum ConnectReturnCode: UInt8, Sendable, Hashable, CustomStringConvertible {
        /// 0: connection accepted.
        case accepted = 0
        /// 1: the server does not support the requested protocol level.
        case unacceptableProtocolVersion = 1
        /// 2: the client identifier is well-formed UTF-8 but not allowed.
        case identifierRejected = 2
        /// 3: the network connection was made but the MQTT service is unavailable.
        case serverUnavailable = 3
        /// 4: the data in the user name or password is malformed or wrong.
        case badUsernameOrPassword = 4
        /// 5: the client is not authorised to connect.
        case notAuthorized = 5

        public var description: String {
            switch self {
            case .accepted: "accepted"
            case .unacceptableProtocolVersion: "unacceptable protocol version"
            case .identifierRejected: "identifier rejected"
            case .serverUnavailable: "server unavailable"
            case .badUsernameOrPassword: "bad user name or password"
            case .notAuthorized: "not authorised"
            }
        }
    }
}
