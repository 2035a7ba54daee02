import Foundation

/// The mode state of the house, as persisted by the daemon across restarts: every room's
/// mode timeline, with the instants its temporary modes end (so they still end on time after
/// a restart).
public struct ModeSnapshot: Sendable, Equatable, Codable {
    /// The mode timeline per room id.
    public var timelines: [RoomID: ModeTimeline]

    public init(timelines: [RoomID: ModeTimeline] = [:]) {
        self.timelines = timelines
    }

    /// The mode in effect per room id.
    public var roomModes: [RoomID: ModeID] { timelines.compactMapValues(\.current) }

    /// When the next temporary mode ends, if one is set.
    public var nextExpiry: Date? { timelines.values.compactMap(\.nextExpiry).min() }

    private enum CodingKeys: String, CodingKey {
        case timelines
        // The shape before one timeline per room: modes per room and one temporary mode.
        case roomModes, revertAt, revertRooms, previousModes
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let timelines = try c.decodeIfPresent([RoomID: ModeTimeline].self, forKey: .timelines) {
            self.timelines = timelines
            return
        }
        // A state file of an earlier version: the temporary mode becomes a layer on top of
        // the mode its rooms go back to.
        let modes = try c.decodeIfPresent([RoomID: ModeID].self, forKey: .roomModes) ?? [:]
        let revertAt = try c.decodeIfPresent(Date.self, forKey: .revertAt)
        let rooms = Set(try c.decodeIfPresent([RoomID].self, forKey: .revertRooms) ?? [])
        let previous = try c.decodeIfPresent([RoomID: ModeID].self, forKey: .previousModes) ?? [:]
        var timelines: [RoomID: ModeTimeline] = [:]
        for room in Set(modes.keys).union(rooms) {
            if let revertAt, rooms.contains(room), let mode = modes[room] {
                timelines[room] = ModeTimeline(base: previous[room], layers: [.init(mode: mode, since: revertAt, until: revertAt)])
            } else {
                timelines[room] = ModeTimeline(base: modes[room])
            }
        }
        self.timelines = timelines
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(timelines, forKey: .timelines)
    }
}
