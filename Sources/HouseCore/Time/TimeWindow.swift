import Foundation

/// A time window resolved to a concrete interval `[start, end)` on one local day. A window that
/// crosses midnight belongs to the day it starts (`day`), even though it ends the day after.
public struct TimeWindow: Sendable, Hashable, CustomStringConvertible {
    /// The local day the window belongs to (the day it starts).
    public var day: LocalDate
    public var start: Date
    public var end: Date
    /// The configured window it was resolved from.
    public var spec: TimeWindowSpec

    public init(day: LocalDate, start: Date, end: Date, spec: TimeWindowSpec) {
        self.day = day
        self.start = start
        self.end = end
        self.spec = spec
    }

    /// Whether `date` is inside the window (start included, end excluded).
    public func contains(_ date: Date) -> Bool { start <= date && date < end }

    public var duration: TimeInterval { end.timeIntervalSince(start) }

    public var description: String { "\(day): \(start) ..< \(end) (\(spec))" }
}

/// A configured window on one local day.
///
/// Missing sun edges: when a window edge is a sun event that does not happen on that day (polar
/// day or polar night), the window does not exist that day: it is closed the whole day, nothing
/// is relevant through it and no routine runs in it. The result says which event was missing and
/// why, so a user can be told ("no sunset on 2026-06-21 in Tromsø: sun above the horizon all day").
public enum WindowResolution: Sendable, Hashable {
    /// The window exists on that day.
    case open(TimeWindow)
    /// The window's days do not include that day.
    case notOnThisDay
    /// An edge is a sun event that does not happen on that day.
    case noSunEvent(SunEvent, SunOccurrence)

    /// The interval, when the window exists that day.
    public var window: TimeWindow? {
        if case .open(let w) = self { return w }
        return nil
    }
}
