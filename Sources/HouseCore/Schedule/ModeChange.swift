import Foundation

/// A change of the mode in effect.
public struct ModeChange: Sendable, Hashable, CustomStringConvertible {
    public var from: String?
    public var to: String?
    public var at: Date
    /// The timed mode whose end caused the change; nil when a mode was set.
    public var expired: String?

    public init(from: String?, to: String?, at: Date, expired: String?) {
        self.from = from
        self.to = to
        self.at = at
        self.expired = expired
    }

    public var description: String {
        let f = from ?? "none", t = to ?? "none"
        if let expired { return "\(expired) ended: \(f) -> \(t) at \(at)" }
        return "\(f) -> \(t) at \(at)"
    }
}
