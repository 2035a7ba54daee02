/// A house mode (night, away, movie...): a set of device states, optionally limited to rooms.
public struct Mode: Sendable, Equatable {
    public var id: ModeID
    /// Names people use ("night", "bedtime"); the id is always one of them.
    public var names: [String]
    /// Device id to the state the mode wants (devices that switch).
    public var devices: [DeviceID: DeviceState]
    /// Cover id to the position the mode wants, 0 (closed) to 100 (open).
    public var covers: [DeviceID: Int]
    /// Rooms the mode applies to by default; empty means the whole house.
    public var rooms: [RoomID]
    /// Never applied without an explicit yes (also implied when it switches a `confirm: true` device).
    public var confirm: Bool

    public init(id: ModeID, names: [String] = [], devices: [DeviceID: DeviceState] = [:], covers: [DeviceID: Int] = [:],
                rooms: [RoomID] = [], confirm: Bool = false) {
        self.id = id
        self.names = names
        self.devices = devices
        self.covers = covers
        self.rooms = rooms
        self.confirm = confirm
    }
}
