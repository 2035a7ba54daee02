/// A cover (a shutter, blind, curtain, awning) moved by one motor with two windings, each on a
/// relay of one node: `up` opens it, `down` closes it. Never both at once: the windings are one
/// interlock group, with a dead time between one going off and the other going on.
///
/// There is no position sensor: the position is worked out from how long each winding runs
/// (`CoverPosition`), as Tasmota's shutters and ESPHome's time-based cover do.
public struct CoverMotor: Sendable, Equatable {
    public var node: NodeID
    /// Board channel of the winding that opens (raises) the cover.
    public var upChannel: Int
    /// Board channel of the winding that closes (lowers) it.
    public var downChannel: Int
    /// Full travel from closed to open.
    public var openTime: Duration
    /// Full travel from open to closed.
    public var closeTime: Duration
    /// How much longer than the computed travel a run to an end keeps the winding on, so that the
    /// cover reaches its end stop even when the position drifted.
    public var endMargin: Duration
    /// The pause between one winding going off and the other going on (the motor runs down).
    public var deadTime: Duration?
    /// What it is, as Home Assistant names it.
    public var deviceClass: CoverClass

    public init(node: NodeID, upChannel: Int, downChannel: Int, openTime: Duration, closeTime: Duration? = nil,
                endMargin: Duration? = nil, deadTime: Duration? = nil, deviceClass: CoverClass = .shutter) {
        self.node = node
        self.upChannel = upChannel
        self.downChannel = downChannel
        self.openTime = openTime
        self.closeTime = closeTime ?? openTime
        self.endMargin = endMargin ?? Self.defaultEndMargin(openTime: openTime, closeTime: closeTime ?? openTime)
        self.deadTime = deadTime
        self.deviceClass = deviceClass
    }

    /// A tenth of the longer travel, at least one second.
    public static func defaultEndMargin(openTime: Duration, closeTime: Duration) -> Duration {
        max(.seconds(1), max(openTime, closeTime) / 10)
    }

    /// The full travel time toward `direction`.
    public func travelTime(_ direction: CoverDirection) -> Duration {
        direction == .up ? openTime : closeTime
    }

    /// The relay of the winding that drives toward `direction`.
    public func winding(_ direction: CoverDirection) -> RelayRef {
        RelayRef(node: node, channel: direction == .up ? upChannel : downChannel)
    }

    /// The longest a winding may stay on: its full travel and the end margin (the relay's max-on).
    public func maximumRun(_ direction: CoverDirection) -> Duration {
        travelTime(direction) + endMargin
    }

    /// The id the relay bank knows a winding by (`living-shutter/up`): not a device of the house,
    /// so it has no topic and no name; the cover is what people and automations switch.
    public static func windingID(of cover: DeviceID, _ direction: CoverDirection) -> DeviceID {
        DeviceID("\(cover.rawValue)/\(direction.rawValue)")
    }

    /// Whether `id` is a winding's (`windingID`), not a device's.
    public static func isWindingID(_ id: DeviceID) -> Bool {
        guard let slash = id.rawValue.lastIndex(of: "/") else { return false }
        return CoverDirection(rawValue: String(id.rawValue[id.rawValue.index(after: slash)...])) != nil
    }
}

/// What a cover is, as Home Assistant's cover device classes name it.
public enum CoverClass: String, Sendable, Equatable, CaseIterable {
    case shutter, blind, curtain, shade, awning, window
    /// Worked by an opener (`CoverOpener`).
    case garage, gate, door

    /// The words (singular) a cover of this class answers to besides "cover": its class's own,
    /// never another class's.
    public var words: [String] {
        switch self {
        case .shutter: ["shutter", "roller shutter"]
        case .blind: ["blind"]
        case .curtain: ["curtain", "drape"]
        case .shade: ["shade"]
        case .awning: ["awning"]
        case .window: ["window"]
        case .garage: ["garage door", "door"]
        case .gate: ["gate"]
        case .door: ["door"]
        }
    }
}
