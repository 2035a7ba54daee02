import Foundation

/// Everything `house.yaml` (plus the board profiles it names) describes, validated.
///
/// This is the one model every subsystem reads: the intent pipeline, the relay bank, the
/// scheduler, the phrase matcher and the daemon. It is produced by `ConfigurationLoader`
/// and may also be built directly in tests.
public struct HouseConfiguration: Sendable, Equatable {
    public var house: HouseInfo
    public var mqtt: MQTTSettings
    public var nodes: [Node]
    /// Board profiles by id (from `devices/*.yaml`).
    public var boards: [String: BoardProfile]
    /// Floors, in the order written; a room may name one (`Room.floor`).
    public var floors: [Floor]
    public var rooms: [Room]
    public var devices: [Device]
    public var modes: [Mode]
    public var routines: [Routine]
    public var rules: [Rule]
    public var permissions: Permissions
    /// The page on the Pi, when configured (`web:`).
    public var web: WebSettings?
    /// Which nodes may coordinate, and the coordinator's lease (`coordination:`).
    public var coordination: CoordinationSettings
    /// Whether habits are suggested, and the evidence they need (`suggestions:`).
    public var suggestions: SuggestionSettings
    /// The HomeKit bridge, when configured (`homekit:`).
    public var homekit: HomeKitSettings?

    public init(
        house: HouseInfo,
        mqtt: MQTTSettings = MQTTSettings(),
        nodes: [Node] = [],
        boards: [String: BoardProfile] = [:],
        floors: [Floor] = [],
        rooms: [Room] = [],
        devices: [Device] = [],
        modes: [Mode] = [],
        routines: [Routine] = [],
        rules: [Rule] = [],
        permissions: Permissions = Permissions(),
        web: WebSettings? = nil,
        coordination: CoordinationSettings = CoordinationSettings(),
        suggestions: SuggestionSettings = SuggestionSettings(),
        homekit: HomeKitSettings? = nil
    ) {
        self.house = house
        self.mqtt = mqtt
        self.nodes = nodes
        self.boards = boards
        self.floors = floors
        self.rooms = rooms
        self.devices = devices
        self.modes = modes
        self.routines = routines
        self.rules = rules
        self.permissions = permissions
        self.web = web
        self.coordination = coordination
        self.suggestions = suggestions
        self.homekit = homekit
    }

    public func room(id: RoomID) -> Room? { rooms.first { $0.id == id } }
    public func device(id: DeviceID) -> Device? { devices.first { $0.id == id } }
    public func mode(id: ModeID) -> Mode? { modes.first { $0.id == id } }
    public func routine(id: RoutineID) -> Routine? { routines.first { $0.id == id } }
    public func node(id: NodeID) -> Node? { nodes.first { $0.id == id } }
    public func devices(inRoom roomID: RoomID) -> [Device] { devices.filter { $0.room == roomID } }
    public func floor(id: FloorID) -> Floor? { floors.first { $0.id == id } }

    /// The node this machine is, when the configuration says: the only node, else the node named
    /// like `hostName` (or its first label, "pi-main" for "pi-main.local").
    public func localNode(hostName: String) -> Node? {
        if nodes.count == 1 { return nodes[0] }
        let short = hostName.split(separator: ".").first.map(String.init) ?? hostName
        return nodes.first { $0.id.rawValue == hostName || $0.id.rawValue == short }
    }
    /// The rooms on a floor, in the order written.
    public func rooms(onFloor floorID: FloorID) -> [Room] { rooms.filter { $0.floor == floorID } }
    /// The devices in the rooms `roomIDs` (a floor's rooms), or every device when nil.
    public func devices(inRooms roomIDs: Set<RoomID>?) -> [Device] {
        guard let roomIDs else { return devices }
        return devices.filter { roomIDs.contains($0.room) }
    }
}

/// The house itself: its name and where it is on Earth (for time zone and sun times).
public struct HouseInfo: Sendable, Equatable {
    public var name: String
    public var timeZone: HouseZone
    public var latitude: Double
    public var longitude: Double
    /// A spoken command that would switch more devices than this at once ("turn everything off",
    /// "all the lights") asks for a yes first (`house.confirm_above`, default 5).
    public var confirmAbove: Int
    /// The language people speak to the house in (`house.language`, default "en"): the
    /// community grammar's file of that language is read beside our own phrases.
    public var language: String

    public init(name: String, timeZone: HouseZone, latitude: Double, longitude: Double, confirmAbove: Int = 5, language: String = "en") {
        self.language = language
        self.name = name
        self.timeZone = timeZone
        self.latitude = latitude
        self.longitude = longitude
        self.confirmAbove = confirmAbove
    }
}

/// A machine (Raspberry Pi) of the house that owns relays.
public struct Node: Sendable, Equatable {
    public var id: NodeID
    /// Board profile id (a file `devices/<board>.yaml`).
    public var board: String
    /// GPIO chip override (name, path, label or number); the board profile's chip otherwise.
    public var chip: String?
    /// The room the node stands in (room id): what is said at this node ("turn off the lights",
    /// "the light in here") means that room unless the speaker names another.
    public var room: RoomID?

    public init(id: NodeID, board: String, chip: String? = nil, room: RoomID? = nil) {
        self.id = id
        self.board = board
        self.chip = chip
        self.room = room
    }
}

/// A room of the house.
public struct Room: Sendable, Equatable {
    public var id: RoomID
    public var name: String
    public var aliases: [String]
    /// The floor the room is on (floor id); nil for a room on no floor (a garden).
    public var floor: FloorID?

    public init(id: RoomID, name: String, aliases: [String] = [], floor: FloorID? = nil) {
        self.id = id
        self.name = name
        self.aliases = aliases
        self.floor = floor
    }
}
