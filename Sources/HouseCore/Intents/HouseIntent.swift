/// Something a person, an automation rule or a routine asks the house to do.
///
/// Intents are thin typed values in SiriKit's shape: their parameters are what was said, not yet
/// resolved against the house. `IntentPipeline` resolves, confirms and handles them.
public enum HouseIntent: Sendable, Equatable {
    case control(HouseControlIntent)
    case setMode(SetHouseModeIntent)
    case query(QueryHouseStatusIntent)
    case runRoutine(RunRoutineIntent)
}

/// Switch a device, or all devices of a kind in a room or the house.
public struct HouseControlIntent: Sendable, Equatable {
    /// Room name, alias or id as spoken; nil when not said.
    public var room: String?
    /// Floor name, alias or id as spoken ("upstairs"): the devices of the floor's rooms.
    public var floor: String?
    public var action: HouseAction?
    /// Device name, alias or id as spoken ("lamp", "lights", "garage door"); nil when not said.
    public var device: String?
    /// Set when the phrase addressed every device of a kind ("all the lights", "lights" plural).
    public var plural: Bool
    /// Set when the phrase said "all" or "every" ("all the lights", "every lamp"): with no room,
    /// that means the whole house. Without it, "the lights" with no room asks which room.
    public var wholeHouse: Bool
    /// Set when the phrase asked for something a relay cannot do ("dim the lights"): the devices
    /// are resolved and the answer says what they can do; nothing is switched.
    public var capability: DeviceCapability?
    /// For action `position`: where to move a cover, 0 (closed) to 100 (open) percent.
    public var position: Int?

    public init(room: String? = nil, floor: String? = nil, action: HouseAction? = nil, device: String? = nil, plural: Bool = false,
                wholeHouse: Bool = false, capability: DeviceCapability? = nil, position: Int? = nil) {
        self.room = room
        self.floor = floor
        self.action = action
        self.device = device
        self.plural = plural
        self.wholeHouse = wholeHouse
        self.capability = capability
        self.position = position
    }
}

/// Put the house (or some rooms) in a mode, optionally for a while.
public struct SetHouseModeIntent: Sendable, Equatable {
    /// Mode name or id as spoken.
    public var mode: String?
    /// How long the mode lasts before the house reverts to the mode it had.
    public var duration: Duration?
    /// Rooms as spoken; nil means the mode's own rooms (or the whole house).
    public var rooms: [String]?
    /// A floor as spoken ("night mode upstairs"): its rooms, when no rooms were said.
    public var floor: String?
    /// "Night mode in here": the speaker's room (`IntentAnswers.contextRoom`), asked for when unknown.
    public var here: Bool

    public init(mode: String? = nil, duration: Duration? = nil, rooms: [String]? = nil, floor: String? = nil, here: Bool = false) {
        self.mode = mode
        self.duration = duration
        self.rooms = rooms
        self.floor = floor
        self.here = here
    }
}

/// Ask about the house.
public struct QueryHouseStatusIntent: Sendable, Equatable {
    public var queryType: QueryType?
    public var timeRange: TimeRange?
    /// Restrict a device-state query to a room (as spoken).
    public var room: String?
    /// Restrict a query to a floor's rooms (as spoken: "upstairs").
    public var floor: String?
    /// Restrict a device-state query to a device name (as spoken).
    public var device: String?
    /// The name was a plural or a kind ("are the kitchen lights on"): every device of it.
    public var plural: Bool
    /// "What's on in here": the speaker's room (`IntentAnswers.contextRoom`), asked for when unknown.
    public var here: Bool

    public init(queryType: QueryType? = nil, timeRange: TimeRange? = nil, room: String? = nil, floor: String? = nil,
                device: String? = nil, plural: Bool = false, here: Bool = false) {
        self.queryType = queryType
        self.timeRange = timeRange
        self.room = room
        self.floor = floor
        self.device = device
        self.plural = plural
        self.here = here
    }
}

/// Run a routine by id or shortcut phrase.
public struct RunRoutineIntent: Sendable, Equatable {
    public var routine: String?

    public init(routine: String? = nil) { self.routine = routine }
}

/// What to do to a device.
public enum HouseAction: String, Sendable, Codable, CaseIterable, Hashable {
    case on, off, toggle, open, close
    /// Stop a cover where it is.
    case stop
    /// Move a cover to a position (`HouseControlIntent.position`).
    case position
}

/// What a status query asks for.
public enum QueryType: String, Sendable, Codable, CaseIterable, Hashable {
    /// Which devices are on (optionally in a room / of a name).
    case deviceStates = "device-states"
    /// The current house mode.
    case mode
    /// Energy used over a time range.
    case energy
    /// Power drawn right now by what is on (from each device's `watts`).
    case power
}

/// A span of time for a query.
public enum TimeRange: Sendable, Equatable, Hashable {
    case today
    case yesterday
    case thisWeek
    case lastHours(Int)
}
