import Foundation
import Synchronization

/// A minimal MQTT 5 client for tests, on the raw client's socket: hand-built packets out, MQTT 5
/// packets in (`Packet5`), bounded waits. It sends what it is told, malformed packets included,
/// and completes no flow by itself.
final class MQTT5Client: Sendable {
    let raw: RawMQTTClient
    var name: String { raw.name }
    /// PUBLISHes that arrived while `publish` waited for its acknowledgement (the client's own
    /// message, when it subscribed to its topic): `expectPublish` returns them first.
    private let early = Mutex<[Publish5]>([])

    private init(raw: RawMQTTClient) {
        self.raw = raw
    }

    /// Opens a TCP connection (no MQTT yet).
    static func open(port: Int, name: String = "raw5") async throws -> MQTT5Client {
        MQTT5Client(raw: try await RawMQTTClient.open(port: port, name: name))
    }

    /// Opens a connection and sends CONNECT; returns the client and the CONNACK, which must be a
    /// success (0x00) unless `expecting` says otherwise.
    static func connect(port: Int, clientID: String, cleanStart: Bool = true, keepAlive: UInt16 = 60,
                        properties: Props5 = Props5(), will: RawMQTT5.Will? = nil, username: String? = nil,
                        password: String? = nil) async throws -> (MQTT5Client, Connack5) {
        let client = try await open(port: port, name: clientID.isEmpty ? "(empty id)" : clientID)
        try await client.send(RawMQTT5.connect(clientID: clientID, cleanStart: cleanStart, keepAlive: keepAlive,
                                               properties: properties, will: will, username: username, password: password))
        let reply = try await client.next()
        guard case .connack(let present, let code, let props) = reply else {
            throw RawClientError(description: "\(clientID): expected CONNACK, got \(reply)")
        }
        guard code == 0 else { throw RawClientError(description: "\(clientID): CONNACK 0x\(String(code, radix: 16)) \(props)") }
        return (client, Connack5(sessionPresent: present, properties: props))
    }

    struct Connack5: Sendable {
        let sessionPresent: Bool
        let properties: Props5
    }

    func send(_ bytes: [UInt8]) async throws {
        try await raw.send(bytes)
    }

    /// The next packet; throws if the connection closes or nothing arrives within `timeout`.
    func next(timeout: Duration = .seconds(20)) async throws -> Packet5 {
        guard let packet = try await nextOrClose(timeout: timeout) else {
            throw RawClientError(description: "\(name): connection closed while waiting for a packet")
        }
        return packet
    }

    /// The next packet, or nil if the connection closed.
    func nextOrClose(timeout: Duration = .seconds(20)) async throws -> Packet5? {
        try await raw.nextFrameOrClose(timeout: timeout).map(Packet5.init)
    }

    /// The next packet must be a PUBLISH.
    func expectPublish(timeout: Duration = .seconds(20)) async throws -> Publish5 {
        if let first = early.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return first }
        let packet = try await next(timeout: timeout)
        guard case .publish(let publish) = packet else {
            throw RawClientError(description: "\(name): expected PUBLISH, got \(packet)")
        }
        return publish
    }

    /// Receives a PUBLISH and acknowledges it (PUBACK, or PUBREC-PUBREL-PUBCOMP).
    func receive(timeout: Duration = .seconds(20)) async throws -> Publish5 {
        let publish = try await expectPublish(timeout: timeout)
        switch publish.qos {
        case 1: try await send(RawMQTT5.ack(0x40, publish.packetID))
        case 2:
            try await send(RawMQTT5.ack(0x50, publish.packetID))
            let release = try await next()
            guard release == .pubrel(publish.packetID, code: 0) else {
                throw RawClientError(description: "\(name): expected PUBREL, got \(release)")
            }
            try await send(RawMQTT5.ack(0x70, publish.packetID))
        default: break
        }
        return publish
    }

    /// Waits for a DISCONNECT from the broker, then for the connection to close; returns its
    /// reason code and properties. Packets before it other than PUBLISH and acknowledgements fail.
    func expectDisconnect(timeout: Duration = .seconds(20)) async throws -> (code: UInt8, properties: Props5) {
        while let packet = try await nextOrClose(timeout: timeout) {
            switch packet {
            case .disconnect(let code, let props):
                try await expectClosed()
                return (code, props)
            case .puback, .pubrec, .pubcomp, .publish, .pubrel:
                continue
            default:
                throw RawClientError(description: "\(name): expected DISCONNECT, got \(packet)")
            }
        }
        throw RawClientError(description: "\(name): the connection closed without a DISCONNECT")
    }

    /// Waits until the broker closes the connection; any packet first fails.
    func expectClosed(timeout: Duration = .seconds(20)) async throws {
        if let packet = try await nextOrClose(timeout: timeout) {
            throw RawClientError(description: "\(name): expected the connection to close, got \(packet)")
        }
    }

    /// Round-trips a PINGREQ and fails if anything else arrives first.
    func expectNothingPending() async throws {
        let unread = early.withLock { $0 }
        guard unread.isEmpty else { throw RawClientError(description: "\(name): expected nothing pending, got \(unread)") }
        try await send(RawMQTT.pingreq)
        let packet = try await next()
        guard packet == .pingresp else {
            throw RawClientError(description: "\(name): expected nothing pending, got \(packet)")
        }
    }

    /// Subscribes; returns the SUBACK reason codes.
    @discardableResult
    func subscribe(_ filters: [(String, UInt8)], packetID: UInt16 = 1, properties: Props5 = Props5()) async throws -> [UInt8] {
        try await send(RawMQTT5.subscribe(filters, packetID: packetID, properties: properties))
        let packet = try await next()
        guard case .suback(packetID, let codes) = packet else {
            throw RawClientError(description: "\(name): expected SUBACK \(packetID), got \(packet)")
        }
        return codes
    }

    @discardableResult
    func subscribe(_ filter: String, options: UInt8 = 0, packetID: UInt16 = 1, properties: Props5 = Props5()) async throws -> [UInt8] {
        try await subscribe([(filter, options)], packetID: packetID, properties: properties)
    }

    /// Publishes and completes the QoS flow from the client side; returns the PUBACK or PUBREC
    /// reason code (0 for QoS 0).
    @discardableResult
    func publish(_ topic: String, _ payload: String, qos: UInt8 = 0, retain: Bool = false, packetID: UInt16 = 1,
                 properties: Props5 = Props5()) async throws -> UInt8 {
        try await send(RawMQTT5.publish(topic: topic, payload: Array(payload.utf8), qos: qos, retain: retain,
                                        packetID: packetID, properties: properties))
        switch qos {
        case 1:
            let packet = try await nextAck()
            guard case .puback(packetID, let code) = packet else { throw RawClientError(description: "\(name): expected PUBACK, got \(packet)") }
            return code
        case 2:
            let packet = try await nextAck()
            guard case .pubrec(packetID, let code) = packet else { throw RawClientError(description: "\(name): expected PUBREC, got \(packet)") }
            if code >= 0x80 { return code }
            try await send(RawMQTT5.ack(0x62, packetID))
            let done = try await next()
            guard done == .pubcomp(packetID, code: 0) else { throw RawClientError(description: "\(name): expected PUBCOMP, got \(done)") }
            return code
        default:
            return 0
        }
    }

    /// The next packet that is not a PUBLISH; PUBLISHes before it are kept for `expectPublish`.
    private func nextAck() async throws -> Packet5 {
        while true {
            let packet = try await next()
            guard case .publish(let publish) = packet else { return packet }
            early.withLock { $0.append(publish) }
        }
    }

    /// Sends DISCONNECT and waits for the broker to close the connection.
    func disconnect(code: UInt8 = 0, properties: Props5 = Props5()) async throws {
        try await send(RawMQTT5.disconnect(code: code, properties: properties))
        try await expectClosed()
    }

    /// Closes the socket abruptly (no DISCONNECT).
    func kill() async {
        await raw.kill()
    }
}
