import Foundation
import HouseBroker
import HouseTesting
import Testing

/// The brokers the MQTT 5 tests run against, from the same test: ours, and Debian's mosquitto
/// 2.0.11 as the reference. Where mosquitto 2.0.11 is known to differ, the test says so per broker.
enum TestedBroker: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case house
    case mosquitto

    /// Ours always; mosquitto where it is installed, and always on CI (where a missing one fails).
    static var all: [TestedBroker] { MosquittoBroker.shouldRun ? [.house, .mosquitto] : [.house] }

    var testDescription: String { self == .house ? "HouseBroker" : "mosquitto 2.0.11" }
}

/// What a test needs the broker set to, said once and given to each broker in its own terms.
struct BrokerSettings: Sendable {
    /// Longest keepalive (mosquitto `max_keepalive`); nil: no cap.
    var maximumKeepAlive: Int?
    /// Topic aliases the broker accepts (mosquitto `max_topic_alias`).
    var topicAliasMaximum = 10
    /// QoS 1/2 messages in flight, both ways (our `receiveMaximum` and `maximumInflightMessages`,
    /// mosquitto `max_inflight_messages`, which it also announces as its Receive Maximum).
    var receiveMaximum = 20
    /// The largest whole packet the broker accepts (mosquitto `max_packet_size`); nil: the default.
    var maximumPacketSize: Int?
    /// ACL text (mosquitto's format, which ours reads too).
    var acl: String?
    /// One user with a password; then anonymous clients are refused.
    var user: (name: String, password: String)?
}

/// A broker a test talks to.
struct BrokerEndpoint: Sendable {
    let kind: TestedBroker
    let port: Int
    /// Ours, for inspection; nil for mosquitto.
    let house: HouseBroker?
}

/// Runs `body` with a fresh broker of `kind` set up as `settings` says, and stops it afterwards.
func withBroker<T: Sendable>(_ kind: TestedBroker, _ settings: BrokerSettings = BrokerSettings(),
                             _ body: (BrokerEndpoint) async throws -> T) async throws -> T {
    switch kind {
    case .house:
        let acl = try settings.acl.map { try AccessControlList(contents: $0) }
        let passwords = try settings.user.map { try PasswordFile(contents: "\($0.name):\($0.password)") }
        return try await withTestBroker(configure: { configuration in
            if let keepAlive = settings.maximumKeepAlive { configuration.maximumKeepAlive = keepAlive }
            configuration.topicAliasMaximum = settings.topicAliasMaximum
            configuration.receiveMaximum = settings.receiveMaximum
            configuration.maximumInflightMessages = settings.receiveMaximum
            if let size = settings.maximumPacketSize { configuration.maximumPacketSize = remainingLength(ofWholePacket: size) }
            configuration.accessControl = acl
            configuration.passwordFile = passwords
        }) { broker in
            try await body(BrokerEndpoint(kind: .house, port: broker.port, house: broker))
        }
    case .mosquitto:
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("housectl-v5-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var lines = ["max_topic_alias \(settings.topicAliasMaximum)", "max_inflight_messages \(settings.receiveMaximum)"]
        if let keepAlive = settings.maximumKeepAlive { lines.append("max_keepalive \(keepAlive)") }
        if let size = settings.maximumPacketSize { lines.append("max_packet_size \(size)") }
        if let acl = settings.acl {
            let file = directory.appendingPathComponent("acl")
            try acl.write(to: file, atomically: true, encoding: .utf8)
            lines.append("acl_file \(file.path)")
        }
        if let user = settings.user {
            let file = try await MosquittoBroker.makePasswordFile(in: directory, username: user.name, password: user.password)
            lines += ["password_file \(file.path)", "allow_anonymous false"]
        }
        return try await withMosquitto(configLines: lines) { broker in
            try await body(BrokerEndpoint(kind: .mosquitto, port: broker.port, house: nil))
        }
    }
}

/// The largest remaining length of a packet of at most `size` bytes in all (our
/// `maximumPacketSize` counts the remaining length; MQTT 5's Maximum Packet Size the whole packet).
func remainingLength(ofWholePacket size: Int) -> Int {
    var remaining = size - 2
    while remaining > 0 && 1 + RawMQTT.remainingLength(remaining).count + remaining > size { remaining -= 1 }
    return remaining
}
