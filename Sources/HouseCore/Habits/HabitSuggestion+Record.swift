import Foundation

extension HabitSuggestion {
    /// A suggestion as JSON (`housectl suggestions --json`, the page): its kind, what it is
    /// about, its days and local time window, its evidence with local times, and its snippet.
    public struct Record: Encodable, Sendable, Equatable {
        public struct Window: Encodable, Sendable, Equatable {
            /// Local "HH:MM".
            public var from: String
            public var to: String
        }

        public struct Evidence: Encodable, Sendable, Equatable {
            public var occurrences: Int
            public var outOf: Int
            /// Local "HH:MM" (time-of-day habits).
            public var median: String?
            /// The median absolute deviation around the median, in minutes.
            public var spreadMinutes: Double
            /// The typical gap or duration, in seconds.
            public var typicalSeconds: Int?
            /// ISO 8601 in the house's zone.
            public var firstSeen: String
            public var lastSeen: String

            enum CodingKeys: String, CodingKey {
                case occurrences, outOf = "out_of", median, spreadMinutes = "spread_minutes", typicalSeconds = "typical_seconds"
                case firstSeen = "first_seen", lastSeen = "last_seen"
            }
        }

        public var id: String
        public var kind: String
        public var text: String
        public var devices: [String]
        public var mode: String?
        public var routine: String?
        /// `every day`, `weekdays`, `weekends` or day names (`Mon, Thu`).
        public var days: String?
        public var window: Window?
        /// The device's `max_on` (max-on), the longest gap of a sequence (rule) or of a set
        /// switched together (mode).
        public var duration: String?
        public var evidence: Evidence
        public var confirm: [String]
        public var yaml: String
    }

    /// This suggestion as a record, its times in `calendar`'s zone.
    public func record(calendar: HouseCalendar) -> Record {
        var days: String?, window: Record.Window?, duration: String?
        switch habit.pattern {
        case .timeOfDay(_, let d, let from, let to):
            days = d.description
            window = Record.Window(from: from.description, to: to.description)
        case .sequence(_, _, let within): duration = DurationParser.format(within)
        case .duration(_, let upTo): duration = DurationParser.format(upTo)
        case .together(_, let within): duration = DurationParser.format(within)
        }
        var subjectMode: String?, subjectRoutine: String?
        if case .timeOfDay(let s, _, _, _) = habit.pattern {
            if case .mode(let m) = s { subjectMode = m.rawValue }
            if case .routine(let r) = s { subjectRoutine = r.rawValue }
        }
        let e = habit.evidence
        let evidence = Record.Evidence(
            occurrences: e.occurrences, outOf: e.outOf, median: e.medianTime?.description,
            spreadMinutes: Double(e.spread.components.seconds) / 60, typicalSeconds: e.typical.map { Int($0.components.seconds) },
            firstSeen: calendar.iso8601Text(e.firstSeen), lastSeen: calendar.iso8601Text(e.lastSeen))
        return Record(id: id, kind: kind.rawValue, text: text, devices: habit.devices.map(\.rawValue),
                      mode: mode?.rawValue ?? subjectMode, routine: routine?.rawValue ?? subjectRoutine, days: days, window: window,
                      duration: duration, evidence: evidence, confirm: confirmNotes, yaml: yaml)
    }
}
