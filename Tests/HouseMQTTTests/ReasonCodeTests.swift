import Testing
@testable import HouseMQTT

@Suite("MQTT 5 reason codes and the errors that carry them")
struct ReasonCodeTests {
    @Test func everyByteIsACodeAndBack() {
        for byte in UInt8.min...UInt8.max {
            let code = MQTTReasonCode(byte)
            #expect(code.value == byte)
            #expect(code.isFailure == (byte >= 0x80))
        }
        #expect(MQTTReasonCode(0x87) == .notAuthorized)
        #expect(MQTTReasonCode.other(0x87) == .notAuthorized, "equal by value")
        #expect(MQTTReasonCode(0x03) == .other(0x03))
    }

    @Test func theTextNamesTheCode() {
        #expect("\(MQTTReasonCode.notAuthorized)" == "not authorized (0x87)")
        #expect("\(MQTTReasonCode.success)" == "success (0x00)")
        #expect("\(MQTTReasonCode.qosNotSupported)" == "QoS not supported (0x9B)")
        #expect("\(MQTTReasonCode(0xC5))" == "reason code (0xC5)")
    }

    @Test func connackCodesMapByVersion() {
        let old = MQTTError.connack(5, version: .v311, endpoint: "h:1", reasonString: nil)
        #expect(old == .authenticationFailed(endpoint: "h:1", code: 5, reason: "Connection Refused: not authorised."))
        #expect(old.reasonCode == nil)
        #expect("\(old)" == "MQTT broker h:1 refused the credentials (CONNACK 5: Connection Refused: not authorised.)")
        #expect(!MQTTError.connack(1, version: .v311, endpoint: "h:1", reasonString: nil).isProtocolVersionRefusal)

        let denied = MQTTError.connack(0x87, version: .v5, endpoint: "h:1", reasonString: nil)
        #expect(denied == .authenticationFailed(endpoint: "h:1", code: 0x87, reason: "not authorized (0x87)"))
        #expect(denied.reasonCode == .notAuthorized)
        #expect("\(denied)" == "MQTT broker h:1 refused the credentials (CONNACK not authorized (0x87))")
        #expect(MQTTError.connack(0x86, version: .v5, endpoint: "h:1", reasonString: nil).reasonCode == .badUserNameOrPassword)

        let busy = MQTTError.connack(0x89, version: .v5, endpoint: "h:1", reasonString: "try later")
        #expect(busy == .connectionRefused(endpoint: "h:1", code: 0x89, reason: "server busy (0x89): try later"))
        let refusedVersion = MQTTError.connack(0x84, version: .v5, endpoint: "h:1", reasonString: nil)
        #expect(refusedVersion.isProtocolVersionRefusal)
        #expect(refusedVersion.reasonCode == .unsupportedProtocolVersion)
    }

    @Test func rejectedSubscriptionsAndBrokerDisconnectsSayWhy() {
        let rejected = MQTTError.subscriptionRejected(filter: "a/#", reason: .notAuthorized)
        #expect("\(rejected)" == "the broker rejected the subscription to 'a/#': not authorized (0x87)")
        #expect(rejected.reasonCode == .notAuthorized)
        #expect(MQTTError.disconnectedByBroker(endpoint: "h:1", reason: .serverShuttingDown).reasonCode == .serverShuttingDown)
        #expect(MQTTError.clientClosed.reasonCode == nil)
    }
}
