import HouseHomeKit
import NIOCore
import NIOPosix

/// One controller's TCP connection to a bridge, for the tests and the bench: requests in the
/// clear until `pairVerify` succeeds, sealed after; responses and `EVENT/1.0` messages told apart
/// (events that come while a response is awaited are kept for `event()`). Scoped: `connect` closes
/// it when its body returns.
public struct HAPTestSession {
    /// A response or an event, whole.
    public struct Message: Sendable {
        public var isEvent: Bool
        public var status: Int
        public var head: String
        public var body: [UInt8]

        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    private var reader: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let writer: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var cipher: SessionCipher?
    private var received: [UInt8] = []
    private var events: [Message] = []

    /// Connects to `host:port`, runs `body` on the session, then closes it.
    public static func connect<R: Sendable>(host: String = "127.0.0.1", port: Int,
                                            _ body: (inout HAPTestSession) async throws -> R) async throws -> R {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var session = HAPTestSession(reader: inbound.makeAsyncIterator(), writer: outbound)
            return try await body(&session)
        }
    }

    /// Whether the session is encrypted (pair-verify succeeded).
    public var isVerified: Bool { cipher != nil }

    /// Sends bytes as they are (a tampered frame, a request past a limit).
    public func sendRaw(_ bytes: [UInt8]) async throws {
        try await writer.write(ByteBuffer(bytes: bytes))
    }

    /// Sends one request, sealed once verified.
    public mutating func send(_ method: String, _ path: String, body: [UInt8] = [], contentType: String? = nil) async throws {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: bridge\r\n"
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
        try await sendRaw(try sealed(Array((head + "\r\n").utf8) + body))
    }

    /// `bytes` as they go on the wire now: sealed once verified (the next frames' counter is used).
    public mutating func sealed(_ bytes: [UInt8]) throws -> [UInt8] {
        guard var c = cipher else { return bytes }
        defer { cipher = c }
        return try c.seal(bytes)
    }

    /// A request and its response.
    public mutating func request(_ method: String, _ path: String, body: [UInt8] = [], contentType: String? = nil) async throws -> Message {
        try await send(method, path, body: body, contentType: contentType)
        return try await response()
    }

    /// A `PUT /characteristics` of one value (JSON text), and its response.
    public mutating func write(aid: Int, iid: Int, value: String) async throws -> Message {
        try await sendWrite(aid: aid, iid: iid, value: value)
        return try await response()
    }

    /// Sends a `PUT /characteristics` of one value (JSON text); its response is the next.
    public mutating func sendWrite(aid: Int, iid: Int, value: String) async throws {
        try await send("PUT", "/characteristics", body: Array("{\"characteristics\":[{\"aid\":\(aid),\"iid\":\(iid),\"value\":\(value)}]}".utf8),
                       contentType: HAPResponse.jsonContentType)
    }

    /// Subscribes to events of `aid.iid`.
    public mutating func subscribe(aid: Int, iid: Int) async throws -> Message {
        try await request("PUT", "/characteristics", body: Array("{\"characteristics\":[{\"aid\":\(aid),\"iid\":\(iid),\"ev\":true}]}".utf8),
                          contentType: HAPResponse.jsonContentType)
    }

    /// The next response (events that come first are kept).
    public mutating func response() async throws -> Message {
        while true {
            let message = try await next()
            if !message.isEvent { return message }
            events.append(message)
        }
    }

    /// The next event (one kept while a response was awaited, or the next to come).
    public mutating func event() async throws -> Message {
        if !events.isEmpty { return events.removeFirst() }
        while true {
            let message = try await next()
            if message.isEvent { return message }
            throw HomeKitError.malformedHTTP(reason: "a response nobody asked for: \(message.head)")
        }
    }

    /// Waits until the bridge closes the connection (true), or sends something first (false).
    public mutating func closed() async -> Bool {
        do {
            _ = try await next()
            return false
        } catch {
            return true
        }
    }

    /// Pair-setup of `controller` with `code` over this connection.
    public mutating func pairSetup(_ controller: HAPTestController, code: String) async throws -> HAPTestController.SetupOutcome {
        try await controller.pairSetup(code: code) { try await tlvRequest("/pair-setup", $0) }
    }

    /// Pair-verify of `controller`; once verified, the session is encrypted.
    public mutating func pairVerify(_ controller: HAPTestController, accessoryKey: [UInt8]) async throws -> HAPTestController.VerifyOutcome {
        let outcome = try await controller.pairVerify(accessoryKey: accessoryKey) { try await tlvRequest("/pair-verify", $0) }
        if case .verified(let c) = outcome { cipher = c }
        return outcome
    }

    mutating func tlvRequest(_ path: String, _ tlv: TLV8) async throws -> TLV8 {
        try TLV8.decode(try await request("POST", path, body: tlv.encoded(), contentType: HAPResponse.tlv8ContentType).body)
    }

    /// The next whole message off the connection.
    mutating func next() async throws -> Message {
        while true {
            if let message = Self.message(&received) { return message }
            guard let buffer = try await reader.next() else { throw HomeKitError.malformedHTTP(reason: "the bridge closed the connection") }
            let bytes = Array(buffer.readableBytesView)
            if var c = cipher {
                received += try c.open(bytes)
                cipher = c
            } else {
                received += bytes
            }
        }
    }

    /// Takes one whole message (headers and Content-Length bytes of body) off the front of
    /// `bytes`; nil until it is all there.
    public static func message(_ bytes: inout [UInt8]) -> Message? {
        guard let end = HAPRequestParser.headerEnd(bytes) else { return nil }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        let length = lines.compactMap { line -> Int? in
            line.lowercased().hasPrefix("content-length:") ? Int(line.split(separator: ":")[1].filter { !$0.isWhitespace }) : nil
        }.first ?? 0
        guard bytes.count >= end + 4 + length else { return nil }
        defer { bytes.removeFirst(end + 4 + length) }
        let words = lines.first?.split(separator: " ") ?? []
        return Message(isEvent: words.first == "EVENT/1.0", status: words.dropFirst().first.flatMap { Int($0) } ?? 0,
                       head: head, body: Array(bytes[(end + 4)..<(end + 4 + length)]))
    }
}
