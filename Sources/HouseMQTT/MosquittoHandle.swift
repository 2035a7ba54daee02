import Foundation
internal import CMosquitto

/// What libmosquitto's callbacks report, copied out of its buffers before the callback returns.
enum MosquittoEvent: Sendable {
    case connack(code: Int32, sessionPresent: Bool)
    case disconnected(rc: Int32, errno: Int32)
    case published(mid: Int32)
    case subscribed(mid: Int32, granted: [Int32])
    case unsubscribed(mid: Int32)
    case message(MQTTMessage)
    case log(level: Int32, text: String)
}

/// Owns one `struct mosquitto *` and its network thread. Callbacks arrive on libmosquitto's
/// thread and are forwarded to `client` (held weakly, set once before any connect).
///
/// Methods marked "worker" block and run on the client's `BlockingWorker`; the others only queue
/// packets and are safe from any thread (libmosquitto locks internally).
final class MosquittoHandle: @unchecked Sendable {
    private static let libraryInitialized: Bool = {
        mosquitto_lib_init()
        return true
    }()

    let raw: OpaquePointer
    /// Set once in `MQTTClient.init`, before the network thread exists.
    weak var client: MQTTClient?
    /// Only touched on the worker thread.
    private var loopRunning = false

    init(clientID: String, cleanSession: Bool) throws {
        _ = Self.libraryInitialized
        guard let raw = mosquitto_new(clientID.isEmpty ? nil : clientID, cleanSession, nil) else {
            let e = errno
            throw MQTTError.operationFailed(call: "mosquitto_new", reason: "\(String(cString: strerror(e))) (errno \(e))")
        }
        self.raw = raw
        mosquitto_user_data_set(raw, Unmanaged.passUnretained(self).toOpaque())
        installCallbacks()
    }

    deinit {
        mosquitto_destroy(raw)
    }

    private static func forward(_ userdata: UnsafeMutableRawPointer?, _ event: MosquittoEvent) {
        guard let userdata else { return }
        let handle = Unmanaged<MosquittoHandle>.fromOpaque(userdata).takeUnretainedValue()
        handle.client?.handle(event)
    }

    private func installCallbacks() {
        mosquitto_connect_with_flags_callback_set(raw) { _, userdata, code, flags in
            MosquittoHandle.forward(userdata, .connack(code: code, sessionPresent: flags & 1 != 0))
        }
        mosquitto_disconnect_callback_set(raw) { _, userdata, rc in
            let savedErrno = errno
            MosquittoHandle.forward(userdata, .disconnected(rc: rc, errno: savedErrno))
        }
        mosquitto_publish_callback_set(raw) { _, userdata, mid in
            MosquittoHandle.forward(userdata, .published(mid: mid))
        }
        mosquitto_subscribe_callback_set(raw) { _, userdata, mid, count, granted in
            let codes = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(count))) } ?? []
            MosquittoHandle.forward(userdata, .subscribed(mid: mid, granted: codes))
        }
        mosquitto_unsubscribe_callback_set(raw) { _, userdata, mid in
            MosquittoHandle.forward(userdata, .unsubscribed(mid: mid))
        }
        mosquitto_message_callback_set(raw) { _, userdata, message in
            guard let m = message?.pointee, let topicPointer = m.topic else { return }
            let topic = String(cString: topicPointer)
            var payload: [UInt8] = []
            if let bytes = m.payload, m.payloadlen > 0 {
                payload = Array(UnsafeRawBufferPointer(start: bytes, count: Int(m.payloadlen)))
            }
            let qos = MQTTQoS(rawValue: Int(m.qos)) ?? .atMostOnce
            MosquittoHandle.forward(userdata, .message(MQTTMessage(topic: topic, payload: payload, qos: qos, retain: m.retain)))
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

    // MARK: Setup (before connecting)

    /// Options, last will and TLS; throws `invalidConfiguration` naming the failing call.
    func configure(_ configuration: MQTTConfiguration) throws {
        try check(mosquitto_int_option(raw, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311)), "mosquitto_int_option(PROTOCOL_VERSION)")
        try check(mosquitto_int_option(raw, MOSQ_OPT_TCP_NODELAY, 1), "mosquitto_int_option(TCP_NODELAY)")
        // No in-flight limit in libmosquitto: 2.0.11 parks QoS 1/2 messages beyond its quota as
        // "invalid" when it reconnects and never sends them again, so a publish waiting for its
        // PUBACK across a broker restart would wait forever. The client keeps its own window
        // (`MQTTConfiguration.maximumInFlight`) in front of libmosquitto instead.
        try check(mosquitto_int_option(raw, MOSQ_OPT_SEND_MAXIMUM, 100), "mosquitto_int_option(SEND_MAXIMUM)")
        // Reconnecting is our job: keep libmosquitto's own retry effectively asleep until we stop it.
        try check(mosquitto_reconnect_delay_set(raw, 3600, 3600, false), "mosquitto_reconnect_delay_set")
        if let will = configuration.lastWill {
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set(raw, will.topic, Int32(bytes.count), bytes.baseAddress, Int32(will.qos.rawValue), will.retain)
            }
            try check(rc, "mosquitto_will_set(\(will.topic))")
        }
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

    private func check(_ rc: Int32, _ call: String) throws {
        guard rc != Self.success else { return }
        throw MQTTError.invalidConfiguration("\(call) failed: \(Self.describe(rc))")
    }

    // MARK: Connection (worker)

    /// Worker: sets the credentials, starts a non-blocking connect and the network thread.
    /// Returns nil on success or the error of the failing call.
    func connect(host: String, port: Int, keepAlive: Int32, username: String?, password: String?) -> MQTTError? {
        let endpoint = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        stopLoop()
        if let username {
            let rc = mosquitto_username_pw_set(raw, username, password)
            if rc != Self.success {
                return .operationFailed(call: "mosquitto_username_pw_set", reason: Self.describe(rc))
            }
        }
        errno = 0
        let rc = mosquitto_connect_async(raw, host, Int32(port), keepAlive)
        let savedErrno = errno
        if rc != Self.success {
            return Self.connectError(rc: rc, errno: savedErrno, endpoint: endpoint, call: "mosquitto_connect_async", detail: nil)
        }
        let started = mosquitto_loop_start(raw)
        if started != Self.success {
            return .operationFailed(call: "mosquitto_loop_start", reason: Self.describe(started))
        }
        loopRunning = true
        return nil
    }

    /// Worker: stops the network thread (aborting a pending connect) so libmosquitto never
    /// reconnects on its own.
    func stopLoop() {
        guard loopRunning else { return }
        mosquitto_disconnect(raw)
        let socket = mosquitto_socket(raw)
        if socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
        mosquitto_loop_stop(raw, false)
        loopRunning = false
    }

    // MARK: Packets (any thread)

    func publish(_ message: MQTTMessage) -> (rc: Int32, mid: Int32) {
        var mid: Int32 = 0
        let rc = message.payload.withUnsafeBytes { bytes in
            mosquitto_publish(raw, &mid, message.topic, Int32(bytes.count), bytes.baseAddress, Int32(message.qos.rawValue), message.retain)
        }
        return (rc, mid)
    }

    func subscribe(_ filter: String, qos: MQTTQoS) -> (rc: Int32, mid: Int32) {
        var mid: Int32 = 0
        let rc = mosquitto_subscribe(raw, &mid, filter, Int32(qos.rawValue))
        return (rc, mid)
    }

    func unsubscribe(_ filter: String) -> (rc: Int32, mid: Int32) {
        var mid: Int32 = 0
        let rc = mosquitto_unsubscribe(raw, &mid, filter)
        return (rc, mid)
    }

    /// Queues a DISCONNECT; the disconnect callback follows once it is written.
    func disconnect() -> Int32 { mosquitto_disconnect(raw) }

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
