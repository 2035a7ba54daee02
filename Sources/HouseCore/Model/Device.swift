import Foundation

/// A thing in the house that can be switched: a relay on one of our nodes, or a device that lives
/// elsewhere and is commanded over MQTT (a Tasmota or zigbee2mqtt plug).
public struct Device: Sendable, Equatable {
    public var id: DeviceID
    public var room: RoomID
    public var kind: DeviceKind
    /// Names people use for it ("lamp", "ceiling light"), singular; plurals are derived.
    public var names: [String]
    /// Power drawn when on, for the energy query.
    public var watts: Double?
    public var endpoint: DeviceEndpoint
    /// Never actuated without an explicit yes (garage door, heater).
    public var confirm: Bool
    public var powerOn: PowerOnPolicy
    public var shutdown: ShutdownPolicy
    /// On for this long, then off (a garage door button).
    public var pulse: Duration?
    /// Switched off by the watchdog after this long on (a heater).
    public var maxOn: Duration?
    /// Minimum time between two switchings (anti-chatter).
    public var minInterval: Duration?
    /// Interlock group id: at most one member on at a time.
    public var interlock: String?
    /// The pause between one member of the interlock group going off and another going on (a
    /// motor's run-down time); nil for the default. Members of one group agree on it.
    public var interlockDeadTime: Duration?

    public init(
        id: DeviceID,
        room: RoomID,
        kind: DeviceKind,
        names: [String] = [],
        watts: Double? = nil,
        endpoint: DeviceEndpoint = .none,
        confirm: Bool = false,
        powerOn: PowerOnPolicy = .off,
        shutdown: ShutdownPolicy = .off,
        pulse: Duration? = nil,
        maxOn: Duration? = nil,
        minInterval: Duration? = nil,
        interlock: String? = nil,
        interlockDeadTime: Duration? = nil
    ) {
        self.id = id
        self.room = room
        self.kind = kind
        self.names = names
        self.watts = watts
        self.endpoint = endpoint
        self.confirm = confirm
        self.powerOn = powerOn
        self.shutdown = shutdown
        self.pulse = pulse
        self.maxOn = maxOn
        self.minInterval = minInterval
        self.interlock = interlock
        self.interlockDeadTime = interlockDeadTime
    }

    /// The relay this device is wired to, if it is one of ours.
    public var relay: RelayRef? {
        if case .relay(let ref) = endpoint { return ref }
        return nil
    }

    /// The motor of a cover.
    public var motor: CoverMotor? {
        if case .cover(let motor) = endpoint { return motor }
        return nil
    }

    /// The node whose relays switch this device (a relay's, or a cover's motor's); nil for a
    /// device that lives elsewhere, a virtual device or a sensor.
    public var node: NodeID? { relay?.node ?? motor?.node ?? input?.node ?? opener?.node }

    /// The opener of a cover worked by one push-button relay.
    public var opener: CoverOpener? {
        if case .opener(let opener) = endpoint { return opener }
        return nil
    }

    /// The words (singular) this device answers to without listing them in its `names`: its
    /// kind's, except for a cover, which answers to "cover" and to its class's words only ("the
    /// curtains" never move a window or a blind), and a cover worked by an opener, which
    /// answers to its class ("door", "gate"), never to "blind" or "shutter".
    public var kindWords: [String] {
        if let opener {
            switch opener.deviceClass {
            case .gate: return ["gate"]
            default: return ["door"]
            }
        }
        if let motor { return ["cover"] + motor.deviceClass.words }
        return kind.words
    }

    /// The GPIO input of a button, contact or motion sensor.
    public var input: GPIOInput? {
        if case .input(let input) = endpoint { return input }
        return nil
    }

    /// The relays this device drives, each with the id the relay bank knows it by: the device's
    /// own id for a relay, one id per winding for a cover (`CoverMotor.windingID`).
    public var relayChannels: [(id: DeviceID, relay: RelayRef)] {
        switch endpoint {
        case .relay(let ref): [(id, ref)]
        case .cover(let motor): CoverDirection.allCases.map { (CoverMotor.windingID(of: id, $0), motor.winding($0)) }
        case .opener(let opener): [(id, opener.relay)]
        case .mqtt, .none, .sensor, .input: []
        }
    }
}

/// What kind of thing a device is; decides which actions it accepts.
public enum DeviceKind: String, Sendable, CaseIterable, Codable {
    case light, fan, heater, plug, outlet, `switch`, pump, door, valve
    /// A shutter, blind, curtain or awning with a position (see `CoverMotor`).
    case cover
    /// A read-only value from MQTT (a temperature, a humidity): see `SensorSource`.
    case sensor
    /// Inputs on a GPIO line (`inputs:`, see `GPIOInput`): a wall button (pressed, never
    /// switched), a door or window contact (open or closed), a motion sensor.
    case button, contact, motion

    /// Whether this kind is an input read from a GPIO line.
    public var isInput: Bool { self == .button || self == .contact || self == .motion }

    /// Actions this kind of device can do.
    public var supportedActions: Set<HouseAction> {
        switch self {
        case .door: Self.doorActions
        case .cover: Self.coverActions
        case .valve: Self.valveActions
        case .sensor, .button, .contact, .motion: []
        default: Self.switchActions
        }
    }

    // Built once: a command asks two or three times, and a set built from a literal each time
    // was a hashed allocation each.
    private static let doorActions: Set<HouseAction> = [.open, .close, .toggle]
    // Off is stop, the safe state (as Tasmota's shutters take POWER OFF); there is no on.
    private static let coverActions: Set<HouseAction> = [.open, .close, .stop, .off, .position, .toggle]
    private static let valveActions: Set<HouseAction> = [.on, .off, .toggle, .open, .close]
    private static let switchActions: Set<HouseAction> = [.on, .off, .toggle]

    /// The words (singular) every device of this kind answers to without listing them in its
    /// `names`, the kind's own name first: "the lights" are the lights, the lamps among them;
    /// "the blinds" the covers.
    public var words: [String] {
        switch self {
        case .light: ["light", "lamp"]
        case .fan: ["fan"]
        case .heater: ["heater", "radiator"]
        case .plug: ["plug", "outlet", "socket"]
        case .outlet: ["outlet", "plug", "socket"]
        case .switch: ["switch"]
        case .pump: ["pump"]
        case .door: ["door"]
        case .cover: ["cover", "shutter", "blind", "curtain", "shade", "awning"]
        case .valve: ["valve"]
        case .sensor: ["sensor"]
        case .button: ["button"]
        case .contact: ["contact"]
        case .motion: ["motion", "motion sensor", "motion detector"]
        }
    }
}

/// Where a device is actuated.
public enum DeviceEndpoint: Sendable, Equatable {
    /// A relay channel on a node of ours.
    case relay(RelayRef)
    /// A device that lives elsewhere, commanded over MQTT.
    case mqtt(MQTTDeviceEndpoint)
    /// Nothing to actuate (virtual device).
    case none
    /// Nothing to actuate either: a value read from an MQTT topic (`kind: sensor`).
    case sensor(SensorSource)
    /// A cover's motor: two interlocked relays of one node (`kind: cover`).
    case cover(CoverMotor)
    /// A GPIO input of a node (`inputs:`): a button, contact or motion sensor.
    case input(GPIOInput)
    /// A cover worked by a push-button opener relay (`kind: cover` with `opener:`).
    case opener(CoverOpener)
}

/// A relay channel on a node.
public struct RelayRef: Sendable, Equatable, Hashable {
    public var node: NodeID
    /// 1-based channel number on the node's board.
    public var channel: Int

    public init(node: NodeID, channel: Int) {
        self.node = node
        self.channel = channel
    }
}

/// How to command and follow a device that lives elsewhere.
public struct MQTTDeviceEndpoint: Sendable, Equatable {
    public var commandTopic: String
    public var stateTopic: String?
    public var payloadOn: String
    public var payloadOff: String

    public init(commandTopic: String, stateTopic: String? = nil, payloadOn: String = "ON", payloadOff: String = "OFF") {
        self.commandTopic = commandTopic
        self.stateTopic = stateTopic
        self.payloadOn = payloadOn
        self.payloadOff = payloadOff
    }
}

/// What a relay does when housectl starts.
public enum PowerOnPolicy: String, Sendable, Codable, CaseIterable {
    case off, on, restore
}

/// What a relay does when housectl stops.
public enum ShutdownPolicy: String, Sendable, Codable, CaseIterable {
    /// Leave the relay as it is (lines are released holding their level where the hardware allows).
    case leave
    /// Switch the relay off before releasing it.
    case off
}

/// On or off.
public enum DeviceState: String, Sendable, Codable, CaseIterable, Hashable {
    case on = "ON"
    case off = "OFF"

    public var isOn: Bool { self == .on }
    public init(isOn: Bool) { self = isOn ? .on : .off }
}
