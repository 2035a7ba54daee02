import MQTTTopics
import Testing
@testable import HouseMQTT

/// MQTT 5 properties to libmosquitto's property lists and back, without a broker: what a publish
/// builds is what a receive reads.
@Suite("MQTT 5 properties and libmosquitto's lists")
struct PropertyConversionTests {
    static let every = MQTTPublishProperties(
        messageExpiryInterval: 86_400, responseTopic: "house/reply/42", correlationData: [0, 1, 2, 0, 254, 255],
        contentType: "application/json; charset=utf-8", payloadFormatIndicator: .utf8,
        userProperties: [MQTTUserProperty("room", "kitchen"), MQTTUserProperty("source", "cli"), MQTTUserProperty("room", "hall ✓")],
        subscriptionIdentifiers: [7, MQTTSubscribeOptions.maximumSubscriptionIdentifier])

    /// Builds the list a broker would send with `properties` and reads it as a received PUBLISH.
    func received(_ properties: MQTTPublishProperties) throws -> (properties: MQTTPublishProperties?, route: DeliveryRoute) {
        let list = try MosquittoPropertyList(properties, topic: "t", includingSubscriptionIdentifiers: true)
        return list.withHead { MosquittoPropertyList.received($0) }
    }

    @Test func everyPropertySurvivesTheRoundTrip() throws {
        let (properties, route) = try received(Self.every)
        #expect(properties == Self.every)
        #expect(route == .identifiers([7, MQTTSubscribeOptions.maximumSubscriptionIdentifier]))
    }

    @Test(arguments: [
        MQTTPublishProperties(messageExpiryInterval: UInt32.max),
        MQTTPublishProperties(correlationData: []),
        MQTTPublishProperties(contentType: ""),
        MQTTPublishProperties(payloadFormatIndicator: .bytes),
        MQTTPublishProperties(userProperties: [MQTTUserProperty("", "")]),
        MQTTPublishProperties(userProperties: (1...50).map { MQTTUserProperty("k\($0 % 3)", "v\($0)") }),
        MQTTPublishProperties(correlationData: Array(repeating: 0xAB, count: 65_535)),
    ])
    func edgeValuesSurviveTheRoundTrip(properties: MQTTPublishProperties) throws {
        #expect(try received(properties).properties == properties)
    }

    /// A client must not send subscription identifiers: a publish's list leaves them out.
    @Test func aPublishLeavesOutSubscriptionIdentifiers() throws {
        let message = MQTTMessage(topic: "t", string: "x", properties: Self.every)
        let list = try #require(try MQTTClient.propertyList(of: message, on: .v5))
        let (properties, route) = list.withHead { MosquittoPropertyList.received($0) }
        var expected = Self.every
        expected.subscriptionIdentifiers = []
        #expect(properties == expected)
        #expect(route == .topic)
    }

    /// Nothing is built for a message without properties, nor on MQTT 3.1.1.
    @Test func noListWithoutPropertiesOrOnThreeOneOne() throws {
        #expect(try MQTTClient.propertyList(of: MQTTMessage(topic: "t", string: "x"), on: .v5) == nil)
        #expect(try MQTTClient.propertyList(of: MQTTMessage(topic: "t", string: "x", properties: Self.every), on: .v311) == nil)
        let (properties, route) = MosquittoPropertyList.received(nil)
        #expect(properties == nil && route == .topic)
    }

    /// The client's own subscription identifier routes the message and is never shown; alone,
    /// it makes no properties at all.
    @Test func theClientsOwnIdentifierRoutesButIsNotShown() throws {
        let own = ClientState.ownIdentifiers.lowerBound
        let alone = try received(MQTTPublishProperties(subscriptionIdentifiers: [own]))
        #expect(alone.properties == nil)
        #expect(alone.route == .identifier(own))
        let withOthers = try received(MQTTPublishProperties(contentType: "text/plain", subscriptionIdentifiers: [own, 3]))
        #expect(withOthers.properties == MQTTPublishProperties(contentType: "text/plain", subscriptionIdentifiers: [3]))
        #expect(withOthers.route == .identifiers([own, 3]))
    }

    @Test func aWillListCarriesItsDelay() throws {
        let list = try MosquittoPropertyList(MQTTPublishProperties(contentType: "text/plain"), topic: "will", willDelay: 30)
        // A will's list read as a PUBLISH: its message properties are there, the delay (a will
        // property) is not one of them.
        #expect(list.withHead { MosquittoPropertyList.received($0).properties } == MQTTPublishProperties(contentType: "text/plain"))
        #expect(!list.isEmpty)
    }

    @Test func refusedValuesSayWhichPropertyAndWhy() {
        func problem(_ properties: MQTTPublishProperties, payload: [UInt8] = Array("x".utf8)) -> String? {
            do {
                try properties.validate(topic: "t", payload: payload)
                return nil
            } catch {
                guard case .invalidProperty(let topic, let property, let reason) = error, topic == "t" else { return "\(error)" }
                return "\(property): \(reason)"
            }
        }
        #expect(problem(Self.every) == nil)
        #expect(problem(MQTTPublishProperties(messageExpiryInterval: 0)) == "message expiry interval: it must be at least 1 second")
        #expect(problem(MQTTPublishProperties(responseTopic: "reply/#"))?.hasPrefix("response topic: wildcards") == true)
        #expect(problem(MQTTPublishProperties(contentType: "a\u{0}b")) == "content type: it contains U+0000, which MQTT text may not carry")
        #expect(problem(MQTTPublishProperties(userProperties: [MQTTUserProperty("line", "one\ntwo")])) == "user property 'line': it contains U+000A, which MQTT text may not carry")
        #expect(problem(MQTTPublishProperties(correlationData: Array(repeating: 1, count: 65_536))) == "correlation data: it is 65536 bytes, over 65,535")
        #expect(problem(MQTTPublishProperties(contentType: String(repeating: "é", count: 40_000)))?.hasPrefix("content type: it is 80000 bytes") == true)
        #expect(problem(MQTTPublishProperties(payloadFormatIndicator: .utf8), payload: [0x61, 0xFF]) == "payload format indicator: it says UTF-8 but the payload is not valid UTF-8")
        #expect(problem(MQTTPublishProperties(payloadFormatIndicator: .bytes), payload: [0x61, 0xFF]) == nil)
        #expect("\(MQTTError.invalidProperty(topic: "t", property: "content type", reason: "r"))" == "invalid MQTT 5 content type for 't': r")
    }

    @Test func aMessageWithoutPropertiesCarriesNone() {
        var message = MQTTMessage(topic: "t", string: "x")
        #expect(!message.hasProperties && message.properties.isEmpty)
        message.properties = MQTTPublishProperties()
        #expect(!message.hasProperties)
        message.properties.userProperties.append(MQTTUserProperty("a", "b"))
        #expect(message.hasProperties)
        #expect(message != MQTTMessage(topic: "t", string: "x"))
        #expect(message == MQTTMessage(topic: "t", string: "x", properties: MQTTPublishProperties(userProperties: [MQTTUserProperty("a", "b")])))
        #expect(Set([message, message]).count == 1)
    }
}
