/// What a mode does to which rooms.
extension HouseConfiguration {
    /// The rooms a mode applies to: the rooms asked for, else the mode's own, else every room.
    public func modeRooms(_ mode: Mode, rooms: [Room]) -> [RoomID] {
        !rooms.isEmpty ? rooms.map(\.id) : (!mode.rooms.isEmpty ? mode.rooms : self.rooms.map(\.id))
    }

    /// The devices a mode switches in those rooms, and to what, in device-id order.
    public func modeTargets(_ mode: Mode, rooms: [Room]) -> [(device: Device, state: DeviceState)] {
        let scope = Set(modeRooms(mode, rooms: rooms))
        return mode.devices.sorted { $0.key < $1.key }.compactMap { id, s in
            guard let d = device(id: id), scope.contains(d.room) else { return nil }
            return (d, s)
        }
    }

    /// The covers `mode` moves in the rooms it applies to, with their positions, by cover id.
    public func modeCoverTargets(_ mode: Mode, rooms: [Room]) -> [(cover: Device, position: Int)] {
        let scope = Set(modeRooms(mode, rooms: rooms))
        return mode.covers.sorted { $0.key < $1.key }.compactMap { id, position in
            guard let d = device(id: id), scope.contains(d.room) else { return nil }
            return (d, position)
        }
    }
}
