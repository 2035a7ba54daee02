import HouseBroker
import HouseTesting
import Testing

/// Bad MQTT 5 input, built byte by byte: each gets the reason code the MQTT 5 specification names
/// (0x81 malformed packet, 0x82 protocol error, ...) in DISCONNECT (or CONNACK for a CONNECT),
/// the connection ends, and the broker keeps serving everyone else. Against our broker and
/// mosquitto 2.0.11, whose answers are listed beside ours where they differ.
// One test at a time: every case starts a broker (a mosquitto process for half of them), and
// dozens starting at once made other suites' connects time out in full runs.
@Suite("MQTT 5: malformed packets and protocol errors", .serialized)
struct MQTT5MalformedTests {
    /// What a broker does with a bad packet.
    enum Answer: Sendable, Equatable {
        /// Tells the reason code (DISCONNECT, or CONNACK for a CONNECT) and closes.
        case code(UInt8)
        /// Closes without saying why.
        case closed
        /// Lets it pass: the connection stays (for a CONNECT: CONNACK 0).
        case kept
    }

    /// A bad packet, the reason code our broker answers with, and what mosquitto 2.0.11 does
    /// (where it differs from the specification, it is listed so that a change shows).
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let house: UInt8
        let mosquitto: Answer
        var testDescription: String { name }

        init(_ name: String, _ bytes: [UInt8], _ house: UInt8, mosquitto: Answer? = nil) {
            self.name = name
            self.bytes = bytes
            self.house = house
            self.mosquitto = mosquitto ?? .code(house)
        }

        func expected(from broker: TestedBroker) -> Answer { broker == .house ? .code(house) : mosquitto }
    }

    /// A PUBLISH at QoS 0 to `topic` with the raw property block `props` (its length included).
    static func publish(_ topic: String = "t", props: [UInt8], flags: UInt8 = 0) -> [UInt8] {
        RawMQTT.packet(0x30 | flags, RawMQTT.string(topic) + props + Array("payload".utf8))
    }

    /// A property block of `bytes` with its (one-byte) length.
    static func block(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count)] + bytes }

    static func subscribe(_ filter: String = "a/b", options: UInt8 = 1, props: [UInt8] = [0]) -> [UInt8] {
        RawMQTT.packet(0x82, [0, 1] + props + RawMQTT.string(filter) + [options])
    }

    /// Bad packets sent after a successful CONNECT.
    static let badPackets: [Case] = [
        Case("a property twice (content type)", publish(props: block([0x03] + RawMQTT.string("a") + [0x03] + RawMQTT.string("b"))), 0x82, mosquitto: .closed),
        Case("a property the packet may not carry (session expiry in PUBLISH)", publish(props: block([0x11, 0, 0, 0, 1])), 0x81),
        Case("an unknown property identifier", publish(props: block([0x7F, 0])), 0x81),
        Case("a value cut short (message expiry of two bytes)", publish(props: block([0x02, 0, 0])), 0x81),
        Case("ill-formed UTF-8 in a string property", publish(props: block([0x03, 0, 2, 0xC3, 0x28])), 0x81, mosquitto: .closed),
        Case("U+0000 in a user property", publish(props: block([0x26, 0, 2, 0x61, 0] + RawMQTT.string("v"))), 0x81, mosquitto: .closed),
        Case("a payload format indicator of 2", publish(props: block([0x01, 2])), 0x82, mosquitto: .kept),
        Case("a response topic with a wildcard", publish(props: block([0x08] + RawMQTT.string("replies/#"))), 0x82, mosquitto: .kept),
        Case("a subscription identifier in a PUBLISH from a client", publish(props: block([0x0B, 1])), 0x82, mosquitto: .kept),
        Case("a topic alias of 0", publish(props: block([0x23, 0, 0])), 0x94, mosquitto: .code(0x81)),
        Case("a topic alias above the maximum", publish(props: block([0x23, 0, 11])), 0x94),
        Case("an empty topic without a topic alias", publish("", props: [0]), 0x82),
        Case("an empty topic with an alias not set", publish("", props: block([0x23, 0, 1])), 0x82),
        Case("a property length beyond the packet", publish(props: [10, 0x01, 1]), 0x81),
        Case("a property length not in its shortest form", publish(props: [0x80, 0x00]), 0x81),
        Case("a subscription identifier of 0", subscribe(props: block([0x0B, 0])), 0x82, mosquitto: .code(0x81)),
        Case("two subscription identifiers in SUBSCRIBE", subscribe(props: block([0x0B, 1, 0x0B, 2])), 0x82, mosquitto: .closed),
        Case("reserved bits in subscription options", subscribe(options: 0xC1), 0x81),
        Case("retain handling 3", subscribe(options: 0x31), 0x82, mosquitto: .code(0x81)),
        Case("no local on a shared subscription", subscribe("$share/g/a", options: 0x05), 0x82, mosquitto: .kept),
        Case("SUBSCRIBE without a filter", RawMQTT.packet(0x82, [0, 1, 0]), 0x82, mosquitto: .code(0x81)),
        Case("UNSUBSCRIBE with a property it may not carry (reason string)",
             RawMQTT.packet(0xA2, [0, 1] + block([0x1F] + RawMQTT.string("why")) + RawMQTT.string("a")), 0x81),
        Case("PUBACK with a reason code PUBACK does not have", RawMQTT.packet(0x40, [0, 1, 0x05]), 0x82, mosquitto: .kept),
        Case("DISCONNECT with a reason code DISCONNECT does not have", RawMQTT.packet(0xE0, [0x02]), 0x82, mosquitto: .closed),
        Case("PUBREL with reserved flags", RawMQTT.packet(0x60, [0, 1]), 0x81, mosquitto: .closed),
        Case("a server's packet (SUBACK)", RawMQTT.packet(0x90, [0, 1, 0, 0]), 0x82, mosquitto: .kept),
    ]

    /// Bad CONNECTs: answered with CONNACK.
    static let badConnects: [Case] = {
        func connect(props: [UInt8], willProps: [UInt8]? = nil) -> [UInt8] {
            var body = RawMQTT.string("MQTT") + [5, willProps == nil ? 0x02 : 0x06, 0, 60] + props + RawMQTT.string("bad")
            if let willProps { body += willProps + RawMQTT.string("w") + RawMQTT.binary([1]) }
            return RawMQTT.packet(0x10, body)
        }
        return [
            Case("CONNECT with a receive maximum of 0", connect(props: block([0x21, 0, 0])), 0x82, mosquitto: .closed),
            Case("CONNECT with a maximum packet size of 0", connect(props: block([0x27, 0, 0, 0, 0])), 0x82, mosquitto: .closed),
            Case("CONNECT with the session expiry twice", connect(props: block([0x11, 0, 0, 0, 1, 0x11, 0, 0, 0, 2])), 0x82, mosquitto: .closed),
            Case("CONNECT with request problem information 2", connect(props: block([0x17, 2])), 0x82, mosquitto: .closed),
            Case("CONNECT with ill-formed UTF-8 in a user property", connect(props: block([0x26, 0, 1, 0xFF, 0, 1, 0x61])), 0x81, mosquitto: .closed),
            Case("CONNECT with a topic alias (a PUBLISH property)", connect(props: block([0x23, 0, 1])), 0x81, mosquitto: .closed),
            Case("CONNECT with authentication data and no method", connect(props: block([0x16, 0, 1, 9])), 0x82, mosquitto: .kept),
            Case("will properties with a session expiry", connect(props: [0], willProps: block([0x11, 0, 0, 0, 1])), 0x81, mosquitto: .closed),
        ]
    }()

    @Test("bad packets after CONNECT: DISCONNECT with the reason code, the connection ends, the others are served",
          arguments: TestedBroker.all, badPackets)
    func badPacket(broker: TestedBroker, bad: Case) async throws {
        try await withBroker(broker) { endpoint in
            let (bystander, _) = try await MQTT5Client.connect(port: endpoint.port, clientID: "bystander")
            try await bystander.subscribe("still/#", options: 1)
            let (client, _) = try await MQTT5Client.connect(port: endpoint.port, clientID: "bad")
            try await client.send(bad.bytes)
            switch bad.expected(from: broker) {
            case .code(let expected):
                let (code, props) = try await client.expectDisconnect()
                #expect(code == expected, "\(props)")
                if broker == .house { #expect(props.reasonString?.isEmpty == false) }
            case .closed:
                try await client.expectClosed()
            case .kept:
                try await client.send(RawMQTT.pingreq)
                while try await client.next() != .pingresp {}
            }
            try await bystander.publish("still/here", "yes", qos: 1)
            #expect(try await bystander.receive().payloadString == "yes")
            if let house = endpoint.house {
                let snapshot = try await house.waitUntil { $0.sessions["bad"] == nil }
                #expect(snapshot.statistics.protocolErrors == 1)
                #expect(snapshot.connectedClients.map(\.clientID) == ["bystander"])
            }
        }
    }

    @Test("bad CONNECTs: CONNACK with the reason code, then the connection ends", arguments: TestedBroker.all, badConnects)
    func badConnect(broker: TestedBroker, bad: Case) async throws {
        try await withBroker(broker) { endpoint in
            let client = try await MQTT5Client.open(port: endpoint.port)
            try await client.send(bad.bytes)
            let expected = bad.expected(from: broker)
            if expected == .closed {
                try await client.expectClosed()
            } else {
                let reply = try await client.next()
                guard case .connack(false, let code, let props) = reply else {
                    Issue.record("expected CONNACK, got \(reply)")
                    return
                }
                #expect(code == (expected == .kept ? 0 : bad.house), "\(props)")
                if expected != .kept { try await client.expectClosed() }
            }
            let (healthy, _) = try await MQTT5Client.connect(port: endpoint.port, clientID: "healthy")
            try await healthy.expectNothingPending()
        }
    }

    @Test("a CONNECT larger than the broker's maximum packet size gets CONNACK 0x95")
    func oversizedConnect() async throws {
        try await withTestBroker(configure: { $0.maximumPacketSize = 100 }) { broker in
            let client = try await MQTT5Client.open(port: broker.port)
            var props = Props5()
            props.userProperties = [.init("padding", String(repeating: "x", count: 200))]
            try await client.send(RawMQTT5.connect(clientID: "big", properties: props))
            guard case .connack(_, let code, _) = try await client.next() else {
                Issue.record("no CONNACK")
                return
            }
            #expect(code == 0x95)
            try await client.expectClosed()
            // A 3.1.1 CONNECT that large is closed without an answer, as before.
            let old = try await RawMQTTClient.open(port: broker.port)
            try await old.send(RawMQTT.connect(clientID: String(repeating: "y", count: 200)))
            try await old.expectClosed()
        }
    }
}
