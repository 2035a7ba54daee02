import Foundation

extension HouseEngine {
    /// The whole house now (see `HouseOverview`): rooms in the order written, each device's state
    /// as `status` gives it (covers with their position, sensors with their reading); buttons,
    /// which have no state, are left out.
    public func overview() -> HouseOverview {
        let calendar = HouseCalendar(house: configuration.house)
        let rooms = configuration.rooms.map { room -> HouseOverview.RoomView in
            let timeline = timelines[room.id]
            let until = timeline?.layers.last?.until
            let devices = configuration.devices(inRoom: room.id).filter { $0.kind != .button }.map { d -> HouseOverview.DeviceView in
                let s = status(of: d)
                // An opener is pressed to open or close; it has no position to set.
                let actions: [HouseAction] = d.endpoint == .none ? [] : d.opener != nil ? [.open, .close]
                    : HouseAction.allCases.filter { d.kind.supportedActions.contains($0) }
                return HouseOverview.DeviceView(id: d.id, name: d.names.first ?? d.id.rawValue, kind: d.kind, state: s.state, value: s.value,
                                                cover: s.cover, actions: actions, confirm: d.confirm, node: d.node)
            }
            return HouseOverview.RoomView(id: room.id, name: room.name, floor: room.floor.flatMap { configuration.floor(id: $0)?.name },
                                          mode: timeline?.current, modeUntil: until.map { WallInstant($0).iso8601UTC },
                                          modeUntilText: until.map { calendar.clockText($0) + " " + calendar.timeZone.localName(for: $0) },
                                          devices: devices)
        }
        let primary = configuration.nodes.first?.id
        let nodes = configuration.nodes.map { n in
            HouseOverview.NodeView(id: n.id, online: n.id == node ? true : nodeOnline[n.id], primary: n.id == primary)
        }
        let modes = configuration.modes.map { HouseOverview.ModeOption(id: $0.id, name: $0.names.first ?? $0.id.rawValue) }
        let buttons = configuration.devices.filter { $0.kind == .button }.map {
            buttonPresses[$0.id] ?? HouseOverview.ButtonView(id: $0.id, presses: 0, last: nil)
        }
        return HouseOverview(house: configuration.house.name, mode: currentMode, rooms: rooms, nodes: nodes, modes: modes, buttons: buttons)
    }
}
