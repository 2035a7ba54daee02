/// What `HouseService` answers after handling an intent: the words to say and the facts behind them.
public struct HouseResponse: Sendable, Equatable {
    /// Whether the intent was carried out.
    public enum Code: String, Sendable, Codable {
        case success, failure
        /// Not carried out: refused by the permissions or waiting for a yes (only on the
        /// `events` record of a refusal; the service never answers it).
        case refused
    }

    /// A device's state after the intent.
    public struct DeviceStatus: Sendable, Equatable, Codable {
        public var device: DeviceID
        public var room: RoomID
        /// Nil for a device that has not reported its state since the start (its `value` says
        /// `unknown`): the JSON then has no `state`.
        public var state: DeviceState?
        /// A sensor's reading in words (`19.5 °C`, `unavailable`); nil for a device that switches.
        public var value: String?
        /// A cover's state and position (its `state` is then ON unless it is closed).
        public var cover: CoverReport?

        public init(device: DeviceID, room: RoomID, state: DeviceState?, value: String? = nil) {
            self.device = device
            self.room = room
            self.state = state
            self.value = value
        }
    }

    public var code: Code
    /// The answer in words (from `HouseDialog`).
    public var dialog: String
    /// Commands issued (or, in a dry run, that would be issued), in order.
    public var commands: [DeviceCommand]
    /// Devices changed by a control or mode intent, or listed by a status query.
    public var devices: [DeviceStatus]
    /// The mode set, or the current mode for a mode query.
    public var mode: ModeID?
    /// Energy used, for an energy query.
    public var energyKWh: Double?

    public init(code: Code = .success, dialog: String, commands: [DeviceCommand] = [], devices: [DeviceStatus] = [],
                mode: ModeID? = nil, energyKWh: Double? = nil) {
        self.code = code
        self.dialog = dialog
        self.commands = commands
        self.devices = devices
        self.mode = mode
        self.energyKWh = energyKWh
    }
}
