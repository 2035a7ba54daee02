import Foundation

extension HouseService {
    /// The mode state of the house, as persisted by the daemon across restarts.
    public struct ModeSnapshot: Sendable, Equatable, Codable {
        /// Mode per room id.
        public var roomModes: [String: String]
        /// When the temporary mode ends, if one is set.
        public var revertAt: Date?
        /// The rooms the temporary mode covers.
        public var revertRooms: [String]
        /// The modes those rooms go back to.
        public var previousModes: [String: String]

        public init(roomModes: [String: String] = [:], revertAt: Date? = nil, revertRooms: [String] = [],
                    previousModes: [String: String] = [:]) {
            self.roomModes = roomModes
            self.revertAt = revertAt
            self.revertRooms = revertRooms
            self.previousModes = previousModes
        }
    }

    /// The current mode state.
    public var modeSnapshot: ModeSnapshot {
        ModeSnapshot(roomModes: roomModes, revertAt: revert?.until.date, revertRooms: revert?.rooms ?? [],
                     previousModes: revert?.previous ?? [:])
    }

    /// Restores a persisted mode state without actuating anything (the relays restore themselves
    /// through their power-on policy). Unknown modes and rooms are dropped.
    public func restoreModes(_ snapshot: ModeSnapshot) {
        roomModes = snapshot.roomModes.filter { configuration.room(id: $0.key) != nil && configuration.mode(id: $0.value) != nil }
        if let at = snapshot.revertAt {
            revert = (WallInstant(at), snapshot.revertRooms.filter { configuration.room(id: $0) != nil },
                      snapshot.previousModes.filter { configuration.mode(id: $0.value) != nil })
        } else {
            revert = nil
        }
    }
}
