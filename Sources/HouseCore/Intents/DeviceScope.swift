/// Where a spoken device name is looked for: one room, the rooms of a floor, or the whole house.
public struct DeviceScope: Sendable, Equatable {
    /// The rooms searched; nil for the whole house.
    public var roomIDs: Set<RoomID>?
    /// How the place is said in answers: "in the kitchen", "on the first floor"; nil for the house.
    public var place: String?

    /// The whole house.
    public static let house = DeviceScope(roomIDs: nil, place: nil)

    public init(roomIDs: Set<RoomID>?, place: String?) {
        self.roomIDs = roomIDs
        self.place = place
    }

    /// One room.
    public init(room: Room) {
        self.init(roomIDs: [room.id], place: "in the \(room.name.lowercased())")
    }

    /// The rooms of a floor.
    public init(floor: Floor, in configuration: HouseConfiguration) {
        self.init(roomIDs: Set(configuration.rooms(onFloor: floor.id).map(\.id)), place: "on the \(floor.name.lowercased())")
    }

    /// The devices of `configuration` in this scope that switch (a sensor is never "on").
    public func devices(of configuration: HouseConfiguration) -> [Device] {
        configuration.devices(inRooms: roomIDs).filter { $0.kind != .sensor }
    }
}
