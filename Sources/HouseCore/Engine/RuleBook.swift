import Foundation
import MQTTTopics

/// The configured rules, which triggers fire them, and the guard that stops a rule firing itself
/// in a loop: a chain of rules deeper than `maximumDepth` stops, and a rule firing more than
/// `burstLimit` times within `burstWindow` is stopped until housectl restarts.
public struct RuleBook: Sendable {
    /// What happened.
    public enum Trigger: Sendable, CustomStringConvertible {
        case mqtt(topic: String, payload: [UInt8])
        case deviceState(DeviceID, DeviceState)
        case mode(ModeID)
        case button(DeviceID, ButtonPress)
        /// A sensor's new value, with the one before it (nil: none before, or unavailable).
        case sensor(DeviceID, before: Double?, after: Double)

        public var description: String {
            switch self {
            case .mqtt(let topic, _): "message on \(topic)"
            case .deviceState(let d, let s): "\(d) \(s.rawValue)"
            case .mode(let m): "mode \(m)"
            case .button(let d, let p): "\(d) \(p.rawValue) press"
            case .sensor(let d, _, let v): "\(d) at \(v)"
            }
        }
    }

    public enum Admission: Equatable { case allowed, stoppedNow, stopped }

    public static let maximumDepth = 4
    public static let burstLimit = 10
    public static let burstWindow: Duration = .seconds(60)

    public let rules: [Rule]
    private var firings: [String: [WallInstant]] = [:]
    private var stopped: Set<String> = []

    public init(rules: [Rule]) { self.rules = rules }

    /// Distinct MQTT topic filters the rules listen on.
    public var topicFilters: [String] {
        var seen: [String] = []
        for r in rules {
            if case .mqtt(let topic, _, _, _) = r.trigger, !seen.contains(topic) { seen.append(topic) }
        }
        return seen
    }

    /// The devices whose state a rule's trigger watches.
    public var stateWatchedDevices: Set<DeviceID> {
        Set(rules.compactMap { rule in
            if case .deviceState(let device, _) = rule.trigger { device } else { nil }
        })
    }

    /// The rules `trigger` fires, in configuration order.
    public func matching(_ trigger: Trigger) -> [Rule] {
        rules.filter { rule in
            switch (rule.trigger, trigger) {
            case (.mqtt(let filter, let payload, let field, let value), .mqtt(let topic, let bytes)):
                guard Self.topic(topic, matches: filter) else { return false }
                return Self.payload(bytes, matches: payload, field: field, value: value)
            case (.deviceState(let device, let state), .deviceState(let d, let s)):
                return device == d && (state == nil || state == s)
            case (.mode(let mode), .mode(let m)):
                return mode == m
            case (.button(let device, let press), .button(let d, let p)):
                return device == d && (press == nil || press == p)
            case (.sensor(let device, let above, let below), .sensor(let d, let before, let after)):
                func inRange(_ v: Double) -> Bool { (above.map { v > $0 } ?? true) && (below.map { v < $0 } ?? true) }
                return device == d && before.map { !inRange($0) } == true && inRange(after)
            default:
                return false
            }
        }
    }

    /// Counts a firing of `rule` at `now`, stopping it when it fires too often.
    public mutating func admit(_ rule: String, at now: WallInstant) -> Admission {
        if stopped.contains(rule) { return .stopped }
        var recent = (firings[rule] ?? []).filter { $0.duration(to: now) < Self.burstWindow }
        recent.append(now)
        firings[rule] = recent
        if recent.count > Self.burstLimit {
            stopped.insert(rule)
            return .stoppedNow
        }
        return .allowed
    }

    /// MQTT topic filter matching (`+` one level, `#` the rest; `$` topics not by a leading wildcard).
    public static func topic(_ topic: String, matches filter: String) -> Bool {
        MQTTTopic.matches(topic: topic, filter: filter)
    }

    /// Whether a payload matches a rule's payload or JSON field condition (none: any payload).
    /// A payload past `InputLimits` (size, JSON nesting) matches no field condition: it is not parsed.
    public static func payload(_ bytes: [UInt8], matches payload: String?, field: String?, value: String?) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self).trimmedWhitespace
        if let payload, text != payload { return false }
        if let field {
            guard let raw = (try? InputLimits.jsonValue(bytes))?.object?[field] else { return false }
            if let value { return raw.scalarText == value }
        }
        return true
    }
}
