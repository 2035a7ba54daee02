import Foundation

/// A room's mode over time, with modes set for a duration reverting when it ends.
///
/// `HouseService` keeps one per room, and it is the only record of modes: routines, the topic
/// API and the CLI all set modes through it, and a revert is a command on the bus.
///
/// A mode set without a duration becomes the base and cancels every timed mode. A mode set with
/// a duration goes on top; when it ends the room returns to whatever is below it then (the
/// previous timed mode if that one still lasts, else the base). Pure: the caller says the time.
public struct ModeTimeline: Sendable, Hashable, Codable {
    /// A mode set for a duration.
    public struct Layer: Sendable, Hashable, Codable {
        public var mode: ModeID
        public var since: Date
        public var until: Date

        public init(mode: ModeID, since: Date, until: Date) {
            self.mode = mode
            self.since = since
            self.until = until
        }
    }

    /// The mode without an end, if any was set.
    public private(set) var base: ModeID?
    /// Timed modes, oldest at the bottom.
    public private(set) var layers: [Layer] = []

    public init(base: ModeID? = nil, layers: [Layer] = []) {
        self.base = base
        self.layers = layers
    }

    /// This timeline with only the modes `keep` accepts (a restored timeline after the modes of
    /// the house changed).
    public func filter(_ keep: (ModeID) -> Bool) -> ModeTimeline {
        ModeTimeline(base: base.flatMap { keep($0) ? $0 : nil }, layers: layers.filter { keep($0.mode) })
    }

    /// Whether nothing was ever set (or everything set was filtered out).
    public var isEmpty: Bool { base == nil && layers.isEmpty }

    /// The mode in effect (before `expire(at:)` is told the time, a layer may be past its end).
    public var current: ModeID? { layers.last?.mode ?? base }

    /// When the next timed mode ends.
    public var nextExpiry: Date? { layers.map(\.until).min() }

    /// Sets `mode` at `now`, for `duration` if given. Returns the change, or nil when the mode in
    /// effect stays the same.
    @discardableResult
    public mutating func set(_ mode: ModeID, duration: Duration?, at now: Date) -> ModeChange? {
        let before = current
        if let duration, duration > .zero {
            layers.append(Layer(mode: mode, since: now, until: now.addingTimeInterval(duration.scheduleSeconds)))
        } else {
            base = mode
            layers.removeAll()
        }
        return before == current ? nil : ModeChange(from: before, to: current, at: now, expired: nil)
    }

    /// Ends every timed mode whose end is at or before `now`, earliest first, and returns the
    /// changes of the mode in effect (each stamped with the instant the timed mode ended).
    public mutating func expire(at now: Date) -> [ModeChange] {
        var changes: [ModeChange] = []
        while let i = layers.indices.filter({ layers[$0].until <= now }).min(by: { layers[$0].until < layers[$1].until }) {
            let before = current
            let ended = layers.remove(at: i)
            if before != current {
                changes.append(ModeChange(from: before, to: current, at: ended.until, expired: ended.mode))
            }
        }
        return changes
    }
}
