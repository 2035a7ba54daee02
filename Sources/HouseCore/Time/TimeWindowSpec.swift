/// A relevance window as configured: from one edge to another, on some days. A window whose end
/// is before its start crosses midnight and belongs to the day it starts on (Friday 22:00-02:00
/// is Friday's).
public struct TimeWindowSpec: Sendable, Hashable, CustomStringConvertible {
    public var from: TimeEdge
    public var to: TimeEdge
    public var days: DaySet

    public init(from: TimeEdge, to: TimeEdge, days: DaySet = .everyDay) {
        self.from = from
        self.to = to
        self.days = days
    }

    public var description: String {
        let d = days == .everyDay ? "every day" : "on \(days)"
        return "\(from)-\(to) \(d)"
    }
}
