/// An automation rule: when something happens, run an intent.
public struct Rule: Sendable, Equatable {
    public var id: String
    public var trigger: RuleTrigger
    public var intent: IntentSpec

    public init(id: String, trigger: RuleTrigger, intent: IntentSpec) {
        self.id = id
        self.trigger = trigger
        self.intent = intent
    }
}

/// What fires a rule.
public enum RuleTrigger: Sendable, Equatable {
    /// An MQTT message on a topic filter, optionally with a given payload or a JSON field value.
    case mqtt(topic: String, payload: String?, jsonField: String?, jsonValue: String?)
    /// A device changing state (to a given state, or any change when nil).
    case deviceState(device: DeviceID, state: DeviceState?)
    /// A sensor's value crossing into a range: above `above` and/or below `below` (it fires when
    /// a reading is in the range and the one before it was not; not on the first reading).
    case sensor(device: DeviceID, above: Double?, below: Double?)
    /// The house entering a mode.
    case mode(ModeID)
    /// A button pressed (a single, double or long press; any press when nil). It runs on the
    /// node the button is wired to, so that a wall button works while the broker is down.
    case button(device: DeviceID, press: ButtonPress?)
}

/// An intent as written in the config (routines and rules), before resolution.
public enum IntentSpec: Sendable, Equatable {
    /// `device` is an id or a name a device has (resolved when the intent runs).
    case control(room: RoomID?, device: String?, action: HouseAction)
    case mode(ModeID, duration: Duration?, rooms: [RoomID])
    case routine(RoutineID)

    /// The typed intent this spec asks for.
    public var intent: HouseIntent {
        switch self {
        case .control(let room, let device, let action):
            .control(HouseControlIntent(room: room?.rawValue, action: action, device: device))
        case .mode(let mode, let duration, let rooms):
            .setMode(SetHouseModeIntent(mode: mode.rawValue, duration: duration, rooms: rooms.isEmpty ? nil : rooms.map(\.rawValue)))
        case .routine(let id):
            .runRoutine(RunRoutineIntent(routine: id.rawValue))
        }
    }
}
