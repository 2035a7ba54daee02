import Foundation
import MQTTTopics

/// Which users may publish and subscribe where; a simple form of mosquitto's `acl_file`.
///
/// ```
/// # lines before any `user` line apply to anonymous clients
/// topic read public/#
/// user alice
/// # access is read, write or readwrite (the default when omitted)
/// topic readwrite house/#
/// topic write alarms/+/set
/// # a pattern applies to every client; %u is the user name, %c the client id
/// pattern read house/%u/#
/// # deny takes precedence over any grant: everything but the secrets
/// user guest
/// topic read #
/// topic deny house/secrets/#
/// ```
/// With an ACL in force, anything not granted is denied, and a `deny` rule wins over every grant:
/// refused subscriptions get SUBACK 0x80, refused publishes are acknowledged but dropped (MQTT
/// 3.1.1 has no way to say no) and logged. A subscription wider than a deny rule (`#` beside
/// `deny secrets/#`) is granted, and the denied topics are not delivered through it.
public struct AccessControlList: Sendable, Equatable {
    /// What a rule grants.
    public struct Access: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// May subscribe and receive.
        public static let read = Access(rawValue: 1)
        /// May publish.
        public static let write = Access(rawValue: 2)
    }

    struct Rule: Sendable, Equatable {
        var filter: String
        var access: Access
        /// A deny rule: the filter's topics may be neither published nor received.
        var isDeny = false
    }

    var anonymous: [Rule] = []
    var users: [String: [Rule]] = [:]
    var patterns: [Rule] = []
    /// Whether any rule denies; without one, delivery needs no check.
    public private(set) var hasDenyRules = false

    /// Parses ACL text; `path` only names the file in errors.
    public init(contents: String, path: String = "<acl file>") throws {
        var currentUser: String?
        for (index, raw) in contents.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") { continue }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard let keyword = words.first else { continue }
            func fail(_ message: String) -> HouseBrokerError {
                .invalidConfigurationFile(path: path, line: index + 1, message: message)
            }
            switch keyword {
            case "user":
                guard words.count == 2 else { throw fail("expected 'user NAME'") }
                currentUser = words[1]
                if users[words[1]] == nil { users[words[1]] = [] }
            case "topic", "pattern":
                var access: Access = [.read, .write]
                var isDeny = false
                let filter: String
                switch words.count {
                case 2: filter = words[1]
                case 3:
                    switch words[1] {
                    case "read": access = .read
                    case "write": access = .write
                    case "readwrite": break
                    case "deny": isDeny = true
                    default: throw fail("access must be read, write, readwrite or deny, not '\(words[1])'")
                    }
                    filter = words[2]
                default: throw fail("expected '\(keyword) [read|write|readwrite|deny] FILTER'")
                }
                guard MQTTTopic.isValidFilter(filter) else { throw fail("invalid topic filter '\(filter)'") }
                let rule = Rule(filter: filter, access: access, isDeny: isDeny)
                hasDenyRules = hasDenyRules || isDeny
                if keyword == "pattern" {
                    patterns.append(rule)
                } else if let user = currentUser {
                    users[user, default: []].append(rule)
                } else {
                    anonymous.append(rule)
                }
            default:
                throw fail("unknown keyword '\(keyword)' (expected user, topic or pattern)")
            }
        }
    }

    /// Reads and parses the ACL file at `path`.
    public init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw HouseBrokerError.invalidConfigurationFile(path: path, line: 0, message: "cannot read the file")
        }
        try self.init(contents: text, path: path)
    }

    private func rules(user: String?, clientID: String) -> [Rule] {
        var result = user.map { users[$0] ?? [] } ?? anonymous
        for pattern in patterns {
            var filter = pattern.filter.replacingOccurrences(of: "%c", with: clientID)
            if pattern.filter.contains("%u") {
                guard let user else { continue }
                filter = filter.replacingOccurrences(of: "%u", with: user)
            }
            result.append(Rule(filter: filter, access: pattern.access, isDeny: pattern.isDeny))
        }
        return result
    }

    /// Whether the client may publish to `topic`: no deny rule matches it and a write rule does.
    public func mayPublish(topic: String, user: String?, clientID: String) -> Bool {
        allows(.write, user: user, clientID: clientID) { MQTTTopic.matches(topic: topic, filter: $0) }
    }

    /// Whether the client may subscribe to `filter`: some read rule covers every topic it matches
    /// and no deny rule covers all of them (a partly denied filter is granted; see `mayRead`).
    public func maySubscribe(filter: String, user: String?, clientID: String) -> Bool {
        allows(.read, user: user, clientID: clientID) { MQTTTopic.covers(pattern: $0, filter: filter) }
    }

    /// The one decision: no deny rule whose filter `applies`, and a rule granting `access` whose does.
    private func allows(_ access: Access, user: String?, clientID: String, where applies: (String) -> Bool) -> Bool {
        let rules = rules(user: user, clientID: clientID)
        if rules.contains(where: { $0.isDeny && applies($0.filter) }) { return false }
        return rules.contains { !$0.isDeny && $0.access.contains(access) && applies($0.filter) }
    }

    /// Whether a message on `topic` may be delivered to the client through a granted
    /// subscription: no deny rule matches the topic.
    public func mayRead(topic: String, user: String?, clientID: String) -> Bool {
        guard hasDenyRules else { return true }
        return !rules(user: user, clientID: clientID).contains { $0.isDeny && MQTTTopic.matches(topic: topic, filter: $0.filter) }
    }
}
