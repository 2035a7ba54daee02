import Foundation

/// A change of the mode in effect.
public struct ModeChange: Sendable, Hashable, CustomStringConvertible {
    public var from: ModeID?
    public var to: ModeID?
    public var at: Date
    /// The timed mode whose end caused the change; nil when a mode was set.
    public var expired: ModeID?

    public init(from: ModeID?, to: ModeID?, at: Date, expired: ModeID?) {
        self.from = from
        self.to = to
        self.at = at
        self.expired = expired
    }

    public var description: String {
        let f = from?.rawValue ?? "none", t = to?.rawValue ?? "none"
        if let expired { return "\(expired) ended: \(f) -> \(t) at \(at)" }
        return "\(f) -> \(t) at \(at)"
    }
}
