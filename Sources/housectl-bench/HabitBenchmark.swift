import Foundation
import GRDB
import HouseCore
import HouseTesting

/// Row 10: a year of history of a 50-device house (about 75,000 events, as JSON lines) read and
/// searched for habits, with the suggestions made; against a plain scan of the same rows, a SQL
/// `SELECT` of every event from an in-memory SQLite database (GRDB, as the state store reads).
enum HabitBenchmark {
    struct Result: Sendable {
        var events: Int
        var suggestions: Int
        /// Reading the JSON lines, finding the habits and making the suggestions.
        var analysis: Duration
        /// The same rows selected and read from SQLite.
        var scan: Duration
    }

    /// A house of 50 lights in 10 rooms (the habit finder needs no relays).
    static func house() -> HouseConfiguration {
        let rooms = (1...10).map { Room(id: RoomID("room-\($0)"), name: "Room \($0)") }
        let devices = (0..<50).map { Device(id: DeviceID("light-\($0)"), room: rooms[$0 % 10].id, kind: .light, names: ["light \($0)"]) }
        return HouseConfiguration(house: HouseInfo(name: "Bench", timeZone: HouseZone(identifier: "Europe/London") ?? .utc,
                                                   latitude: 51.5, longitude: -0.12),
                                  rooms: rooms, devices: devices)
    }

    static func run(seed: UInt64 = 63) throws -> Result {
        let configuration = house()
        var simulator = HouseholdSimulator(calendar: HouseCalendar(house: configuration.house), seed: seed,
                                           noiseDevices: configuration.devices.map(\.id))
        simulator.noisePerDay = 100
        let habits: [HouseholdSimulator.InjectedHabit] = (0..<10).map {
            .timeOfDay(.device(DeviceID("light-\($0)"), .on), days: $0 % 2 == 0 ? .weekdaysOnly : .everyDay,
                       at: TimeOfDay(hour: 6 + $0, minute: 30))
        } + [.duration("light-40", minutes: 30), .sequence(.device("light-41", .on), then: .device("light-42", .on), gapSeconds: 30...120)]
        let events = simulator.history(from: LocalDate(year: 2026, month: 1, day: 1)!, days: 365, habits: habits)
        let lines = simulator.jsonLines(events)

        let clock = ContinuousClock()
        let t0 = clock.now
        let history = HabitHistory.read(lines, file: "bench.jsonl", configuration: configuration)
        let suggestions = configuration.habitSuggestions(from: history.events, now: history.lastTime ?? Date())
        let analysis = clock.now - t0

        let db = try DatabaseQueue()
        try db.write { db in
            try db.execute(sql: "CREATE TABLE event (time REAL NOT NULL, kind TEXT NOT NULL, subject TEXT NOT NULL, action TEXT)")
            let insert = try db.makeStatement(sql: "INSERT INTO event (time, kind, subject, action) VALUES (?, ?, ?, ?)")
            for e in events {
                let (kind, subject, action): (String, String, String?) = switch e.subject {
                case .device(let id, let a): ("device", id.rawValue, a.rawValue)
                case .mode(let id): ("mode", id.rawValue, nil)
                case .routine(let id): ("routine", id.rawValue, nil)
                }
                try insert.execute(arguments: [e.time.timeIntervalSince1970, kind, subject, action])
            }
        }
        let t1 = clock.now
        let scanned = try db.read { db in
            var n = 0
            let rows = try Row.fetchCursor(db, sql: "SELECT time, kind, subject, action FROM event ORDER BY time")
            while let row = try rows.next() {
                let _: Double = row[0]
                let _: String = row[2]
                n += 1
            }
            return n
        }
        let scan = clock.now - t1
        precondition(scanned == events.count)
        return Result(events: events.count, suggestions: suggestions.count, analysis: analysis, scan: scan)
    }
}
