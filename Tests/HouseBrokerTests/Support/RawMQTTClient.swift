import Foundation
import NIOCore
import NIOPosix
import Testing

/// Errors of the raw test client.
struct RawClientError: Error, CustomStringConvertible {
    let description: String
}

/// A minimal MQTT client for tests: raw bytes out, packets in (framed here, decoded as MQTT 3.1.1
/// by `next`, or as MQTT 5 by `MQTT5Client`), with bounded waits. It can send anything, including
/// malformed packets.
final class RawMQTTClient: Sendable {
    /// What a wait ends with.
    private enum Arrival {
        case frame(RawFrame)
        case closed
        case timedOut
    }

    private final class Inbox: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        let lock = NSLock()
        var bytes: [UInt8] = []
        var frames: [RawFrame] = []
        var closed = false
        var waiter: CheckedContinuation<Arrival, Never>?
        /// Set when the timeout fires before the waiter was installed.
        var timedOut = false

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            lock.lock()
            bytes += buffer.readableBytesView
            while let frame = RawFrame.next(from: &bytes) { frames.append(frame) }
            let resume = takeWaiterLocked()
            lock.unlock()
            resume?()
        }

        func channelInactive(context: ChannelHandlerContext) {
            lock.lock()
            closed = true
            let resume = takeWaiterLocked()
            lock.unlock()
            resume?()
        }

        /// If a waiter exists and a frame (or the close) is available, returns the resume action.
        func takeWaiterLocked() -> (() -> Void)? {
            guard let waiter else { return nil }
            if !frames.isEmpty {
                let frame = frames.removeFirst()
                self.waiter = nil
                return { waiter.resume(returning: .frame(frame)) }
            }
            if closed {
                self.waiter = nil
                return { waiter.resume(returning: .closed) }
            }
            return nil
        }

        func cancelWaiter() {
            lock.lock()
            let waiter = self.waiter
            self.waiter = nil
            if waiter == nil { timedOut = true }
            lock.unlock()
            waiter?.resume(returning: .timedOut)
        }
    }

    let channel: Channel
    private let inbox: Inbox
    let name: String

    private init(channel: Channel, inbox: Inbox, name: String) {
        self.channel = channel
        self.inbox = inbox
        self.name = name
    }

    /// Opens a TCP connection to the broker (no MQTT yet).
    static func open(port: Int, name: String = "raw") async throws -> RawMQTTClient {
        let inbox = Inbox()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(inbox) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return RawMQTTClient(channel: channel, inbox: inbox, name: name)
    }

    /// Opens a connection and completes CONNECT; expects CONNACK 0.
    static func connect(port: Int, clientID: String, cleanSession: Bool = true, keepAlive: UInt16 = 60,
                        will: RawMQTT.Will? = nil, username: String? = nil, password: String? = nil,
                        expectSessionPresent: Bool? = nil) async throws -> RawMQTTClient {
        let client = try await open(port: port, name: clientID)
        try await client.send(RawMQTT.connect(clientID: clientID, cleanSession: cleanSession, keepAlive: keepAlive,
                                              will: will, username: username, password: password))
        let reply = try await client.next()
        guard case .connack(let present, 0) = reply else {
            throw RawClientError(description: "\(clientID): expected CONNACK 0, got \(reply)")
        }
        if let expectSessionPresent, present != expectSessionPresent {
            throw RawClientError(description: "\(clientID): session present \(present), expected \(expectSessionPresent)")
        }
        return client
    }

    func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes)).get()
    }

    /// The next packet; throws if the connection closes or nothing arrives within `timeout`.
    func next(timeout: Duration = .seconds(20)) async throws -> RawPacket {
        guard let packet = try await nextOrClose(timeout: timeout) else {
            throw RawClientError(description: "\(name): connection closed while waiting for a packet")
        }
        return packet
    }

    /// The next packet, or nil if the connection closed; throws on timeout.
    func nextOrClose(timeout: Duration = .seconds(20)) async throws -> RawPacket? {
        try await nextFrameOrClose(timeout: timeout).map(RawPacket.init)
    }

    /// The next packet as received (not decoded), or nil if the connection closed; throws on timeout.
    func nextFrameOrClose(timeout: Duration = .seconds(20)) async throws -> RawFrame? {
        let inbox = self.inbox
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        inbox.lock.withLock { inbox.timedOut = false }
        let timer = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(seconds * 1000))) { inbox.cancelWaiter() }
        defer { timer.cancel() }
        let arrival: Arrival = await withCheckedContinuation { continuation in
            inbox.lock.lock()
            if inbox.timedOut, inbox.frames.isEmpty {
                inbox.lock.unlock()
                continuation.resume(returning: .timedOut)
                return
            }
            inbox.waiter = continuation
            let resume = inbox.takeWaiterLocked()
            inbox.lock.unlock()
            resume?()
        }
        switch arrival {
        case .frame(let frame): return frame
        case .closed: return nil
        case .timedOut: throw RawClientError(description: "\(name): timed out waiting for a packet")
        }
    }

    /// Waits until the broker closes the connection, failing if a packet other than those allowed arrives first.
    func expectClosed(timeout: Duration = .seconds(20)) async throws {
        while let packet = try await nextOrClose(timeout: timeout) {
            throw RawClientError(description: "\(name): expected the connection to close, got \(packet)")
        }
    }

    /// The next packet must be a PUBLISH; returns it.
    func expectPublish(timeout: Duration = .seconds(20)) async throws -> RawPublish {
        let packet = try await next(timeout: timeout)
        guard case .publish(let p) = packet else {
            throw RawClientError(description: "\(name): expected PUBLISH, got \(packet)")
        }
        return p
    }

    /// Round-trips a PINGREQ and fails if anything else arrives first: proves nothing is pending.
    func expectNothingPending() async throws {
        try await send(RawMQTT.pingreq)
        let packet = try await next()
        guard packet == .pingresp else {
            throw RawClientError(description: "\(name): expected nothing pending, got \(packet)")
        }
    }

    /// Subscribes and returns the SUBACK codes.
    @discardableResult
    func subscribe(_ filters: [(String, UInt8)], packetID: UInt16 = 1) async throws -> [UInt8] {
        try await send(RawMQTT.subscribe(filters, packetID: packetID))
        let packet = try await next()
        guard case .suback(packetID, let codes) = packet else {
            throw RawClientError(description: "\(name): expected SUBACK \(packetID), got \(packet)")
        }
        return codes
    }

    @discardableResult
    func subscribe(_ filter: String, qos: UInt8 = 0, packetID: UInt16 = 1) async throws -> [UInt8] {
        try await subscribe([(filter, qos)], packetID: packetID)
    }

    /// Publishes and completes the QoS flow from the client side.
    func publish(_ topic: String, _ payload: String, qos: UInt8 = 0, retain: Bool = false, packetID: UInt16 = 1) async throws {
        try await send(RawMQTT.publish(topic: topic, payload, qos: qos, retain: retain, packetID: packetID))
        switch qos {
        case 1:
            let packet = try await next()
            guard packet == .puback(packetID) else { throw RawClientError(description: "\(name): expected PUBACK, got \(packet)") }
        case 2:
            let packet = try await next()
            guard packet == .pubrec(packetID) else { throw RawClientError(description: "\(name): expected PUBREC, got \(packet)") }
            try await send(RawMQTT.pubrel(packetID))
            let done = try await next()
            guard done == .pubcomp(packetID) else { throw RawClientError(description: "\(name): expected PUBCOMP, got \(done)") }
        default:
            break
        }
    }

    func disconnect() async throws {
        try await send(RawMQTT.disconnect)
        try await expectClosed()
    }

    /// Closes the socket abruptly (no DISCONNECT).
    func kill() async {
        try? await channel.close()
    }

    var isOpen: Bool { channel.isActive }
}
