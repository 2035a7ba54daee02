import Foundation
import HouseMQTT
import HouseTesting

/// A client configuration for `broker` with a unique client id and fast reconnects.
func configuration(_ broker: MosquittoBroker, _ name: String, _ version: MQTTProtocolVersion = .v5) -> MQTTConfiguration {
    configuration(port: broker.port, name, version)
}

/// A client configuration for a broker on 127.0.0.1:`port` with a unique client id and fast reconnects.
func configuration(port: Int, _ name: String, _ version: MQTTProtocolVersion = .v5) -> MQTTConfiguration {
    MQTTConfiguration(
        host: "127.0.0.1", port: port, clientID: "\(name)-\(UUID().uuidString.prefix(8))",
        connectTimeout: .seconds(15),
        reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500)),
        protocolVersion: version)
}

/// The next message of `subscription`, failing after a bound.
func next(_ subscription: MQTTSubscription, _ what: String = "a message") async throws -> MQTTMessage {
    try await withTimeout(.seconds(30), what) {
        var iterator = subscription.makeAsyncIterator()
        guard let message = try await iterator.next() else { throw TimeoutError(what: "\(what) (stream ended)", after: .zero) }
        return message
    }
}

/// Payload strings received on `subscription` until one equals `sentinel` (excluded).
func collect(_ subscription: MQTTSubscription, until sentinel: String) async throws -> [String] {
    var received: [String] = []
    while true {
        let message = try await next(subscription, "'\(sentinel)' on \(subscription.filter)")
        if message.string == sentinel { return received }
        received.append(message.string ?? "<binary>")
    }
}

/// Waits (on the state stream) until `client` reaches a state matching `predicate`.
func waitFor(_ client: MQTTClient, _ what: String, _ predicate: @escaping @Sendable (MQTTConnectionState) -> Bool) async throws {
    try await withTimeout(.seconds(30), what) {
        for await state in client.connectionStates() where predicate(state) { return }
        throw TimeoutError(what: "\(what) (state stream ended)", after: .zero)
    }
}

/// Waits until `condition` holds, re-checking it on every connection state change of `client`.
func waitUntil(_ client: MQTTClient, _ what: String, _ condition: @escaping @Sendable () -> Bool) async throws {
    try await withTimeout(.seconds(30), what) {
        for await _ in client.connectionStates() where condition() { return }
        throw TimeoutError(what: "\(what) (state stream ended)", after: .zero)
    }
}

func isDisconnected(_ state: MQTTConnectionState) -> Bool {
    if case .disconnected = state { return true }
    return false
}

func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("housectl-mqtt-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// mosquitto configuration lines for its dynamic security plugin (shipped with it), with its
/// file in `directory`. Anonymous clients may publish anywhere but to `closed/#`, and subscribe
/// to `open/#` and to nothing else (SUBACK
/// "not authorized": mosquitto 2.0.11's own ACL file never refuses a SUBSCRIBE), and may send
/// the plugin's commands (`setAnonymousGroup` disconnects every anonymous client with the MQTT 5
/// reason "administrative action").
func dynamicSecurityLines(in directory: URL) throws -> [String] {
    let candidates = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib/arm-linux-gnueabihf", "/usr/lib"]
        .map { "\($0)/mosquitto_dynamic_security.so" }
    guard let plugin = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
        throw PluginMissing(description: "mosquitto_dynamic_security.so (Debian's mosquitto package) not found in \(candidates)")
    }
    let file = directory.appendingPathComponent("dynamic-security.json")
    try """
        {
          "defaultACLAccess": {"publishClientSend": true, "publishClientReceive": true, "subscribe": false, "unsubscribe": true},
          "clients": [],
          "roles": [{"rolename": "open", "acls": [
            {"acltype": "subscribePattern", "topic": "open/#", "allow": true},
            {"acltype": "publishClientSend", "topic": "closed/#", "allow": false},
            {"acltype": "publishClientSend", "topic": "$CONTROL/dynamic-security/#", "allow": true}]}],
          "groups": [{"groupname": "anonymous", "roles": [{"rolename": "open"}]}],
          "anonymousGroup": "anonymous"
        }
        """.write(to: file, atomically: true, encoding: .utf8)
    return ["plugin \(plugin)", "plugin_opt_config_file \(file.path)", "allow_anonymous true"]
}

/// Runs `body` with a mosquitto that has the dynamic security plugin (`dynamicSecurityLines`),
/// its file in a temporary directory removed afterwards.
func withDynamicSecurityMosquitto<Result: Sendable>(_ body: (MosquittoBroker) async throws -> Result) async throws -> Result {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await withMosquitto(configLines: try dynamicSecurityLines(in: directory), body)
}

struct PluginMissing: Error, CustomStringConvertible {
    let description: String
}

/// This process's descriptors that are TCP sockets connected to 127.0.0.1:`port` (from
/// /proc/self/fd and /proc/net/tcp).
func connectedSockets(toPort port: Int) -> [Int32] {
    // Read to the end: procfs reports a size of 0, and a read of "the whole file" gets a page.
    guard let data = FileHandle(forReadingAtPath: "/proc/net/tcp")?.readDataToEndOfFile() else { return [] }
    let table = String(decoding: data, as: UTF8.self)
    // Columns: sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
    let remote = String(format: "0100007F:%04X", port)
    let inodes = Set(table.split(separator: "\n").dropFirst().compactMap { line -> String? in
        let columns = line.split(separator: " ")
        return columns.count > 9 && columns[2] == remote ? String(columns[9]) : nil
    })
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return descriptors.compactMap { name -> Int32? in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
              target.hasPrefix("socket:["), inodes.contains(String(target.dropFirst(8).dropLast())) else { return nil }
        return Int32(name)
    }.sorted()
}


/// Descriptors a test holds open (on /dev/null) to push new ones up, with the process's soft
/// descriptor limit raised to `limit` where lower; `release()` closes them and puts the limit back.
final class HeldDescriptors {
    struct Exhausted: Error, CustomStringConvertible {
        let description: String
    }

    private var original = rlimit()
    private var limit = rlimit()
    private var held: [Int32] = []

    init(limit wanted: rlim_t) {
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &original)
        limit = original
        if limit.rlim_cur < wanted {
            limit.rlim_cur = min(limit.rlim_max, wanted)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
    }

    /// Takes every free descriptor below `bound`, and one more: open() gives the lowest free
    /// one, so once it gives `bound` or more, none below is free.
    func takeAll(below bound: Int32) throws {
        var fd: Int32
        repeat {
            fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw Exhausted(description: "no descriptor at \(bound) or above (limit \(limit.rlim_cur)): errno \(errno)")
            }
            held.append(fd)
        } while fd < bound
    }

    func release() {
        for fd in held { close(fd) }
        held.removeAll()
        // The process's limit as it was (the descriptors above it are closed now).
        if limit.rlim_cur != original.rlim_cur { setrlimit(Int32(RLIMIT_NOFILE.rawValue), &original) }
    }
}
