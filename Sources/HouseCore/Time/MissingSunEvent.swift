import Foundation

/// A sun event that does not happen on a day (polar day or night).
public struct MissingSunEvent: Error, Sendable, Hashable, CustomStringConvertible {
    public var event: SunEvent
    public var day: LocalDate
    public var occurrence: SunOccurrence

    public var description: String { "no \(event.rawValue) on \(day): \(occurrence)" }
}
