extension MQTTError {
    /// The MQTT 5 reason code behind this error: a refused CONNACK of an MQTT 5 connection, the
    /// broker's DISCONNECT, a rejected subscription, a refused publish. Nil for everything else
    /// (and for MQTT 3.1.1 CONNACK codes, which are no reason codes).
    public var reasonCode: MQTTReasonCode? {
        switch self {
        case .authenticationFailed(_, let code, _), .connectionRefused(_, let code, _):
            return code >= 0x80 && code <= 0xFF ? MQTTReasonCode(UInt8(code)) : nil
        case .disconnectedByBroker(_, let reason), .subscriptionRejected(_, let reason), .publishRefused(let reason):
            return reason
        default:
            return nil
        }
    }

    /// The error for a refused CONNACK: `code` is an MQTT 3.1.1 return code on a 3.1.1 connect,
    /// an MQTT 5 reason code on an MQTT 5 one (with the broker's reason string, when it gave one).
    static func connack(_ code: Int32, version: MQTTProtocolVersion, endpoint: String, reasonString: String?) -> MQTTError {
        guard version == .v5, let byte = UInt8(exactly: code) else {
            let reason = MosquittoHandle.connackReason(code)
            return code == 4 || code == 5
                ? .authenticationFailed(endpoint: endpoint, code: Int(code), reason: reason)
                : .connectionRefused(endpoint: endpoint, code: Int(code), reason: reason)
        }
        let reasonCode = MQTTReasonCode(byte)
        let reason = reasonCode.description + (reasonString.map { ": \($0)" } ?? "")
        switch reasonCode {
        case .badUserNameOrPassword, .notAuthorized, .badAuthenticationMethod:
            return .authenticationFailed(endpoint: endpoint, code: Int(code), reason: reason)
        default:
            return .connectionRefused(endpoint: endpoint, code: Int(code), reason: reason)
        }
    }

    /// Whether this is an MQTT 5 CONNECT refused as an unsupported protocol version: what a
    /// 3.1.1 broker answers (its CONNACK 1 reaches an MQTT 5 client as 0x84).
    var isProtocolVersionRefusal: Bool {
        if case .connectionRefused(_, let code, _) = self { return code == 0x84 }
        return false
    }
}
