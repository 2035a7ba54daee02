import Foundation
internal import CMosquitto

/// What libmosquitto's callbacks report, copied out of its buffers before the callback returns.
enum MosquittoEvent: Sendable {
    /// `code` is an MQTT 3.1.1 return code (0-5) on a 3.1.1 connection, an MQTT 5 reason code on
    /// an MQTT 5 one (a 3.1.1 broker's refusal of an MQTT 5 CONNECT comes as 0x84).
    case connack(code: Int32, sessionPresent: Bool, properties: ConnackProperties)
    /// `rc` is a libmosquitto error code, or on an MQTT 5 connection the reason code of the
    /// broker's DISCONNECT (0 or 0x80 and above).
    case disconnected(rc: Int32, errno: Int32)
    /// A publish was acknowledged (QoS 1/2) or written (QoS 0): `reason` is the broker's PUBACK
    /// or PUBCOMP reason code on an MQTT 5 connection (0x10: nobody subscribes; 0x80 and above:
    /// refused), 0 otherwise.
    case published(mid: Int32, reason: Int32)
    case subscribed(mid: Int32, granted: [Int32])
    case unsubscribed(mid: Int32)
    /// A message, with the subscriptions it is for.
    case message(MQTTMessage, DeliveryRoute)
    case log(level: Int32, text: String)
}

/// Owns one `struct mosquitto *` and its network thread (`MosquittoNetworkThread`). Callbacks
/// arrive on that thread and are forwarded to `client` (held weakly, set once before any connect).
///
/// Methods marked "worker" block and run on the client's `BlockingWorker`; the others only queue
/// packets (and wake the network thread to write them) and are safe from any thread
/// (libmosquitto locks internally).
final class MosquittoHandle: @unchecked Sendable {
    private static let libraryInitialized: Bool = {
        mosquitto_lib_init()
        return true
    }()

    let raw: OpaquePointer
    /// Set once in `MQTTClient.init`, before the network thread exists.
    weak var client: MQTTClient?
    /// Runs libmosquitto's loop while connected; started and stopped on the worker thread.
    private let network: MosquittoNetworkThread
    /// `MQTTConfiguration.receiveBufferSize`, set in `configure` before the network thread exists.
    private var receiveBufferSize: Int32?

    init(clientID: String, cleanSession: Bool) throws {
        _ = Self.libraryInitialized
        guard let raw = mosquitto_new(clientID.isEmpty ? nil : clientID, cleanSession, nil) else {
            let e = errno
            throw MQTTError.operationFailed(call: "mosquitto_new", reason: "\(String(cString: strerror(e))) (errno \(e))")
        }
        self.raw = raw
        do {
            network = try MosquittoNetworkThread(raw)
        } catch {
            mosquitto_destroy(raw)
            throw error
        }
        mosquitto_user_data_set(raw, Unmanaged.passUnretained(self).toOpaque())
        network.deliver = { [weak self] event in self?.client?.handle(event) }
        installCallbacks()
    }

    deinit {
        network.stop()
        mosquitto_destroy(raw)
    }

    /// The handle a callback's `userdata` points at (set in `init`).
    private static func from(_ userdata: UnsafeMutableRawPointer?) -> MosquittoHandle? {
        userdata.map { Unmanaged<MosquittoHandle>.fromOpaque($0).takeUnretainedValue() }
    }

    private static func forward(_ userdata: UnsafeMutableRawPointer?, _ event: MosquittoEvent) {
        from(userdata)?.network.received(event)
    }

    /// The MQTT 5 callbacks, which libmosquitto also calls on 3.1.1 connections (with no
    /// properties).
    private func installCallbacks() {
        mosquitto_connect_v5_callback_set(raw) { _, userdata, code, flags, properties in
            MosquittoHandle.from(userdata)?.limitReceiveBuffer()
            MosquittoHandle.forward(userdata, .connack(
                code: code, sessionPresent: flags & 1 != 0, properties: MosquittoPropertyList.connack(properties)))
        }
        mosquitto_disconnect_v5_callback_set(raw) { _, userdata, rc, _ in
            let savedErrno = errno
            MosquittoHandle.forward(userdata, .disconnected(rc: rc, errno: savedErrno))
        }
        mosquitto_publish_v5_callback_set(raw) { _, userdata, mid, reason, _ in
            MosquittoHandle.forward(userdata, .published(mid: mid, reason: reason))
        }
        mosquitto_subscribe_v5_callback_set(raw) { _, userdata, mid, count, granted, _ in
            let codes = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(count))) } ?? []
            MosquittoHandle.forward(userdata, .subscribed(mid: mid, granted: codes))
        }
        mosquitto_unsubscribe_v5_callback_set(raw) { _, userdata, mid, _ in
            MosquittoHandle.forward(userdata, .unsubscribed(mid: mid))
        }
        mosquitto_message_v5_callback_set(raw) { _, userdata, message, properties in
            guard let m = message?.pointee, let topicPointer = m.topic else { return }
            let topic = String(cString: topicPointer)
            var payload: [UInt8] = []
            if let bytes = m.payload, m.payloadlen > 0 {
                payload = Array(UnsafeRawBufferPointer(start: bytes, count: Int(m.payloadlen)))
            }
            let qos = MQTTQoS(rawValue: Int(m.qos)) ?? .atMostOnce
            // No properties (every 3.1.1 message): nothing is read or built; the client's own
            // subscription identifier alone is read without building anything either.
            let (decoded, route) = MosquittoPropertyList.received(properties)
            MosquittoHandle.forward(userdata, .message(
                MQTTMessage(received: topic, payload: payload, qos: qos, retain: m.retain, properties: decoded), route))
        }
        forwardLogs(true)
    }

    /// Turns libmosquitto's log lines on or off. Off, libmosquitto does not even format them:
    /// it writes a line for every packet, which costs a `vsnprintf` and a string per publish.
    /// Not to be called under the client's lock (an error line takes it, under libmosquitto's
    /// log mutex).
    func forwardLogs(_ on: Bool) {
        guard on else { return mosquitto_log_callback_set(raw, nil) }
        mosquitto_log_callback_set(raw) { _, userdata, level, text in
            guard let text else { return }
            MosquittoHandle.forward(userdata, .log(level: level, text: String(cString: text)))
        }
    }

    /// Network thread, at each CONNACK: what the kernel may hold of the connection's incoming
    /// bytes, if the configuration says (a failure leaves the system's buffer: nothing else changes).
    private func limitReceiveBuffer() {
        guard var bytes = receiveBufferSize else { return }
        let socket = mosquitto_socket(raw)
        if socket >= 0 { setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &bytes, socklen_t(MemoryLayout<Int32>.size)) }
    }

    // MARK: Setup (before connecting)

    /// Options, last will and TLS, for a first connect with `configuration.protocolVersion`;
    /// throws `invalidConfiguration` naming the failing call (or `invalidProperty`).
    func configure(_ configuration: MQTTConfiguration) throws(MQTTError) {
        try check(mosquitto_int_option(raw, MOSQ_OPT_TCP_NODELAY, 1), "mosquitto_int_option(TCP_NODELAY)")
        receiveBufferSize = configuration.receiveBufferSize.map { Int32(clamping: $0) }
        // Reconnecting is our job: keep libmosquitto's own retry effectively asleep until we stop it.
        try check(mosquitto_reconnect_delay_set(raw, 3600, 3600, false), "mosquitto_reconnect_delay_set")
        try prepare(configuration, version: configuration.protocolVersion)
        if let tls = configuration.tls {
            if tls.caFile == nil && tls.caDirectory == nil {
                try check(mosquitto_int_option(raw, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "mosquitto_int_option(TLS_USE_OS_CERTS)")
            }
            try check(
                mosquitto_tls_set(raw, tls.caFile, tls.caDirectory, tls.certificateFile, tls.keyFile, nil),
                "mosquitto_tls_set(ca: \(tls.caFile ?? tls.caDirectory ?? "system"), cert: \(tls.certificateFile ?? "none"))")
            try check(mosquitto_tls_opts_set(raw, tls.verifyPeer ? 1 : 0, tls.version, nil), "mosquitto_tls_opts_set")
            try check(mosquitto_tls_insecure_set(raw, !tls.verifyHostname), "mosquitto_tls_insecure_set")
        }
    }

    /// What a connect with `version` needs, set before every connect (the version may change
    /// with a fallback): the protocol version, the send window, the CONNECT properties and the
    /// last will (with its properties on MQTT 5, without on 3.1.1).
    func prepare(_ configuration: MQTTConfiguration, version: MQTTProtocolVersion) throws(MQTTError) {
        let level = version == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try check(mosquitto_int_option(raw, MOSQ_OPT_PROTOCOL_VERSION, Int32(level)), "mosquitto_int_option(PROTOCOL_VERSION)")
        // No in-flight limit in libmosquitto: 2.0.11 parks QoS 1/2 messages beyond its quota as
        // "invalid" when it reconnects and never sends them again, so a publish waiting for its
        // PUBACK across a broker restart would wait forever. The client keeps its own window
        // (`MQTTConfiguration.maximumInFlight`, at most the broker's MQTT 5 receive maximum) in
        // front of libmosquitto instead. Set again before every connect: an MQTT 5 CONNACK's
        // receive maximum replaces it.
        try check(mosquitto_int_option(raw, MOSQ_OPT_SEND_MAXIMUM, 100), "mosquitto_int_option(SEND_MAXIMUM)")
        // MQTT 5 has no persistent session without a session expiry interval: a 3.1.1 persistent
        // session (clean session off) is one that never expires.
        let connectProperties = version == .v5 && !configuration.cleanSession
            ? try MosquittoPropertyList.connect(sessionExpiry: UInt32.max) : nil
        try storeConnectProperties(connectProperties)
        if let will = configuration.lastWill {
            let properties = version == .v5 && (will.hasProperties || configuration.lastWillDelayInterval != nil)
                ? try MosquittoPropertyList(will.properties, topic: will.topic, willDelay: configuration.lastWillDelayInterval) : nil
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set_v5(raw, will.topic, Int32(bytes.count), bytes.baseAddress, Int32(will.qos.rawValue), will.retain, properties?.head)
            }
            try check(rc, "mosquitto_will_set_v5(\(will.topic))")
            properties?.release()  // libmosquitto owns the list now
        }
    }

    /// Stores the properties the next CONNECT carries (nil: none).
    ///
    /// libmosquitto 2.0 has no non-blocking connect that takes them: `mosquitto_connect_bind_v5`
    /// stores them and then connects blocking (an unreachable host would hold the worker thread
    /// for minutes, past the connect timeout), and `mosquitto_connect_async` sends what is stored.
    /// So they are stored through `mosquitto_connect_bind_v5` without a host: it replaces the
    /// stored list (freeing the old one), then stops at the missing host with MOSQ_ERR_INVAL
    /// before it touches the network (lib/connect.c, the same in 2.0.11 to 2.0.19 and on its
    /// development branch). The MQTT 5 persistent-session test shows the properties arrive.
    private func storeConnectProperties(_ list: MosquittoPropertyList?) throws(MQTTError) {
        let rc = mosquitto_connect_bind_v5(raw, nil, 0, 0, nil, list?.head)
        guard rc == Int32(MOSQ_ERR_INVAL.rawValue) else {
            throw .invalidConfiguration("storing the CONNECT properties failed: \(Self.describe(rc))")
        }
    }

    private func check(_ rc: Int32, _ call: String) throws(MQTTError) {
        guard rc != Self.success else { return }
        throw MQTTError.invalidConfiguration("\(call) failed: \(Self.describe(rc))")
    }

    // MARK: Connection (worker)

    /// Worker: sets the protocol version and what goes with it, the credentials, starts a
    /// non-blocking connect and the network thread (which writes the CONNECT). Returns nil on
    /// success or the error of the failing call.
    func connect(_ configuration: MQTTConfiguration, version: MQTTProtocolVersion, username: String?, password: String?) -> MQTTError? {
        let endpoint = configuration.endpoint
        stopLoop()
        do {
            try prepare(configuration, version: version)
        } catch {
            return error
        }
        if let username {
            let rc = mosquitto_username_pw_set(raw, username, password)
            if rc != Self.success {
                return .operationFailed(call: "mosquitto_username_pw_set", reason: Self.describe(rc))
            }
        }
        errno = 0
        let rc = mosquitto_connect_async(raw, configuration.host, Int32(configuration.port), configuration.keepAliveSeconds)
        let savedErrno = errno
        if rc != Self.success {
            return Self.connectError(rc: rc, errno: savedErrno, endpoint: endpoint, call: "mosquitto_connect_async", detail: nil)
        }
        network.start()
        return nil
    }

    /// Worker: stops the network thread (aborting a pending connect; the connection's loss is
    /// still reported through the disconnect callback).
    func stopLoop() {
        guard network.isRunning else { return }
        mosquitto_disconnect(raw)
        let socket = mosquitto_socket(raw)
        if socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
        network.stop()
    }

    // MARK: Packets (any thread)

    /// Publishes `message`, with `properties` (built from its properties, MQTT 5 only).
    func publish(_ message: MQTTMessage, properties: MosquittoPropertyList?) -> (rc: Int32, mid: Int32) {
        var mid: Int32 = 0
        let rc = message.payload.withUnsafeBytes { bytes in
            mosquitto_publish_v5(raw, &mid, message.topic, Int32(bytes.count), bytes.baseAddress, Int32(message.qos.rawValue),
                                 message.retain, properties?.head)
        }
        network.packetQueued()
        return (rc, mid)
    }

    /// Any thread, holding none of the client's locks: see `MosquittoNetworkThread.writeQueued`.
    func writeQueued() {
        network.writeQueued()
    }

    /// Subscribes to `filter`; on MQTT 5 with the subscription options and `identifier`, on 3.1.1
    /// with the QoS alone.
    func subscribe(_ filter: String, options: MQTTSubscribeOptions, identifier: Int?, version: MQTTProtocolVersion) -> (rc: Int32, mid: Int32) {
        var mid: Int32 = 0
        let qos = Int32(options.qos.rawValue)
        defer { network.packetQueued() }
        guard version == .v5 else { return (mosquitto_subscribe_v5(raw, &mid, filter, qos, 0, nil), mid) }
        var bits: UInt32 = 0
        if options.noLocal { bits |= MQTT_SUB_OPT_NO_LOCAL.rawValue }
        if options.retainAsPublished { bits |= MQTT_SUB_OPT_RETAIN_AS_PUBLISHED.rawValue }
        switch options.retainHandling {
        case .sendAlways: bits |= MQTT_SUB_OPT_SEND_RETAIN_ALWAYS.rawValue
        case .sendIfNew: bits |= MQTT_SUB_OPT_SEND_RETAIN_NEW.rawValue
        case .never: bits |= MQTT_SUB_OPT_SEND_RETAIN_NEVER.rawValue
        }
        // The identifier is in range (checked, or the client's own): only memory can fail here.
        let properties: MosquittoPropertyList?
        do {
            properties = try MosquittoPropertyList.subscribe(identifier: identifier, filter: filter)
        } catch {
            return (Int32(MOSQ_ERR_NOMEM.rawValue), 0)
        }
        let rc = withExtendedLifetime(properties) { mosquitto_subscribe_v5(raw, &mid, filter, qos, Int32(bits), properties?.head) }
        return (rc, mid)
    }

    func unsubscribe(_ filter: String) -> (rc: Int32, mid: Int32) {
        var mid: Int32 = 0
        let rc = mosquitto_unsubscribe_v5(raw, &mid, filter, nil)
        network.packetQueued()
        return (rc, mid)
    }

    /// Queues a DISCONNECT (reason 0, normal: the broker drops the last will); the disconnect
    /// callback follows once it is written.
    func disconnect() -> Int32 {
        let rc = mosquitto_disconnect_v5(raw, 0, nil)
        network.packetQueued()
        return rc
    }

    /// Tests: cut the TCP connection without DISCONNECT, as if the process had died.
    func abortSocket() {
        let socket = mosquitto_socket(raw)
        if socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    // MARK: Error codes

    static let success = Int32(MOSQ_ERR_SUCCESS.rawValue)
    static let noConnection = Int32(MOSQ_ERR_NO_CONN.rawValue)
    static let errnoSet = Int32(MOSQ_ERR_ERRNO.rawValue)
    static let tlsError = Int32(MOSQ_ERR_TLS.rawValue)
    static let lookupError = Int32(MOSQ_ERR_EAI.rawValue)
    static let logError = Int32(MOSQ_LOG_ERR)

    /// `mosquitto_strerror` text and the code.
    static func describe(_ rc: Int32) -> String {
        "\(String(cString: mosquitto_strerror(rc))) (mosquitto error \(rc))"
    }

    /// The text of an MQTT 3.1.1 CONNACK return code.
    static func connackReason(_ code: Int32) -> String { String(cString: mosquitto_connack_string(code)) }

    static func errnoText(_ e: Int32) -> String { "\(String(cString: strerror(e))) (errno \(e))" }

    /// Maps a failed connect step to the matching `MQTTError`, with errno where libmosquitto set it.
    static func connectError(rc: Int32, errno e: Int32, endpoint: String, call: String, detail: String?) -> MQTTError {
        switch rc {
        case tlsError:
            return .tlsFailed(endpoint: endpoint, reason: detail ?? describe(rc))
        case errnoSet where e != 0:
            return .connectFailed(endpoint: endpoint, reason: "\(call): \(errnoText(e))")
        case lookupError:
            return .connectFailed(endpoint: endpoint, reason: "\(call): cannot resolve host name (\(describe(rc)))")
        default:
            var reason = "\(call): \(describe(rc))"
            if e != 0 { reason += ", errno: \(errnoText(e))" }
            if let detail { reason += ", \(detail)" }
            return .connectFailed(endpoint: endpoint, reason: reason)
        }
    }
}
