import Foundation
@testable import HouseCore

/// Places and helpers shared by the scheduler, window, sun and relevance tests.
enum SchedulePlace {
    static let london = HouseCalendar(timeZone: HouseZone(identifier: "Europe/London")!, latitude: 51.5074, longitude: -0.1278)
    static let newYork = HouseCalendar(timeZone: HouseZone(identifier: "America/New_York")!, latitude: 40.7128, longitude: -74.0060)
    static let sydney = HouseCalendar(timeZone: HouseZone(identifier: "Australia/Sydney")!, latitude: -33.8688, longitude: 151.2093)
    static let tromso = HouseCalendar(timeZone: HouseZone(identifier: "Europe/Oslo")!, latitude: 69.6492, longitude: 18.9553)
}

func schedDay(_ text: String) -> LocalDate { LocalDate(text)! }

func schedTime(_ text: String) -> TimeOfDay { TimeOfDay(text)! }

func schedEdge(_ text: String) -> TimeEdge { TimeEdge(text)! }

extension HouseCalendar {
    /// A local `YYYY-MM-DD HH:MM` that must exist unambiguously.
    func at(_ text: String) -> Date { parseLocal(text)! }
}

/// Minutes between two instants (absolute).
func schedMinutesApart(_ a: Date, _ b: Date) -> Double { abs(a.timeIntervalSince(b)) / 60 }

func schedUTC(_ text: String) -> Date {
    let f = ISO8601DateFormatter()
    f.formatOptions = [.withInternetDateTime]
    return f.date(from: text)!
}
