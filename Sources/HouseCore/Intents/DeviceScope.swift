/// Where a spoken device name is looked for: one room, the rooms of a floor, or the whole house.
public struct DeviceScope: Sendable, Equatable {
    /// The rooms searched; nil for the whole house.
    public var roomIDs: Set<RoomID>?
    /// How the place is said in answers: "in the kitchen", "on the first floor"; nil for the house.
    /// Written when asked: only the answers that name the place need it, and a `set` command's
    /// scope is made for every command.
    public var place: String? {
        switch said {
        case .house: nil
        case .room(let name): "in the \(name.lowercased())"
        case .floor(let name): "on the \(name.lowercased())"
        }
    }

    /// What `place` says.
    private enum Said: Sendable, Equatable {
        case house
        case room(String)
        case floor(String)
    }

    private var said: Said

    /// The whole house.
    public static let house = DeviceScope(roomIDs: nil, said: .house)

    private init(roomIDs: Set<RoomID>?, said: Said) {
        self.roomIDs = roomIDs
        self.said = said
    }

    /// One room.
    public init(room: Room) {
        self.init(roomIDs: [room.id], said: .room(room.name))
    }

    /// The rooms of a floor.
    public init(floor: Floor, in configuration: HouseConfiguration) {
        self.init(roomIDs: Set(configuration.rooms(onFloor: floor.id).map(\.id)), said: .floor(floor.name))
    }

    /// The devices of `configuration` in this scope that switch (a sensor is never "on").
    public func devices(of configuration: HouseConfiguration) -> [Device] {
        configuration.devices(inRooms: roomIDs).filter { $0.kind != .sensor }
    }
}
