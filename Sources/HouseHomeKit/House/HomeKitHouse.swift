import HouseCore

/// The bridge's one seam to the house. Writes from HomeKit go in as commands (the daemon's
/// implementation puts them on the command bus from source `homekit`, where permissions apply);
/// state comes out as the devices' states and their changes. The bridge calls nothing else of
/// the house and the house calls nothing of the bridge: changes come to it as values.
public protocol HomeKitHouse: Sendable {
    /// Every bridged device's and mode's state now (what is missing here reads as unknown).
    func states() async -> [HomeKitItem: HomeKitDeviceState]
    /// Carries out what a controller wrote and says how it ended.
    func perform(_ write: HomeKitWrite) async -> HomeKitWriteResult
    /// The states as they change, from now on; one stream for the bridge's one consumer.
    func changes() -> AsyncStream<(HomeKitItem, HomeKitDeviceState)>
}

/// A change a HomeKit controller asks for.
public enum HomeKitWrite: Sendable, Equatable {
    case setOn(DeviceID, Bool)
    /// A cover to a position, 0 closed to 100 open.
    case setPosition(DeviceID, Int)
    /// A garage door: open or close.
    case setDoor(DeviceID, open: Bool)
    /// A mode, in its own rooms (or the whole house).
    case setMode(ModeID)

    public var item: HomeKitItem {
        switch self {
        case .setOn(let d, _), .setPosition(let d, _), .setDoor(let d, _): .device(d)
        case .setMode(let m): .mode(m)
        }
    }

    /// The intent the write asks of the house, as the topic API's `set` (or `mode/set`) would
    /// ask it; nil for a device or mode the configuration does not have.
    public func intent(in configuration: HouseConfiguration) -> HouseIntent? {
        let command: DeviceSetCommand
        let id: DeviceID
        switch self {
        case .setOn(let d, let on): (id, command) = (d, DeviceSetCommand(action: on ? .on : .off))
        case .setPosition(let d, let p): (id, command) = (d, DeviceSetCommand(action: .position, position: p))
        case .setDoor(let d, let open): (id, command) = (d, DeviceSetCommand(action: open ? .open : .close))
        case .setMode(let mode):
            return configuration.mode(id: mode).map { .setMode(SetHouseModeIntent(mode: $0.id.rawValue)) }
        }
        return configuration.device(id: id).map(command.intent(for:))
    }
}

/// How a write ended, as HAP tells a controller (its status codes, table 6-11).
public enum HomeKitWriteResult: Sendable, Equatable {
    case done
    /// Refused by the house (permissions, a confirm device from HomeKit): -70401, with the reason
    /// the house gave, which the bridge logs and the house puts on `house/events` (never a silent
    /// refusal). HAP's "insufficient privileges" is the status of a request the accessory
    /// understood and will not carry out for this controller, which is what a permission or a
    /// missing yes is; -70402 would tell the Home app the accessory cannot be reached, and
    /// -70410 that the value was wrong, neither of which is so.
    case refused(String)
    /// Tried and failed (a node offline, a relay's rule): -70402.
    case failed(String)
    /// The house was too busy to take it: -70403.
    case busy

    /// HAP's status code.
    public var status: Int {
        switch self {
        case .done: 0
        case .refused: HAPStatus.insufficientPrivileges
        case .failed: HAPStatus.unableToCommunicate
        case .busy: HAPStatus.busy
        }
    }

    /// How the house's answer to a write's intent ends for HomeKit.
    public init(_ reply: IntentReply) {
        switch reply.status {
        case .done, .inProgress: self = .done
        case .busy: self = .busy
        case .refused, .needsConfirmation, .unsupported: self = .refused(reply.dialog)
        case .needsValue, .needsChoice, .failed, .error, .expired: self = .failed(reply.dialog)
        }
    }
}

/// HAP's status codes of characteristic reads and writes.
public enum HAPStatus {
    public static let success = 0
    public static let insufficientPrivileges = -70401
    public static let unableToCommunicate = -70402
    public static let busy = -70403
    public static let readOnly = -70404
    public static let writeOnly = -70405
    public static let notificationNotSupported = -70406
    public static let outOfResources = -70407
    public static let timedOut = -70408
    public static let notFound = -70409
    public static let invalidValue = -70410
    public static let insufficientAuthorization = -70411
}
